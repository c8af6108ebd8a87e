package org.p2psip.core.location;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.Random;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.p2psip.core.net.HostPort;

class BindingCodecTest {

    private static final Instant AT = Instant.parse("2024-05-01T12:00:00.123Z");

    private static Binding full() {
        Map<String, String> params = new LinkedHashMap<>();
        params.put("+sip.instance", "\"<urn:uuid:f81d4fae-7dec-11d0-a765-00a0c91e6bf6>\"");
        params.put("reg-id", "1");
        params.put("video", "");
        params.put("description", "\u00e9t\u00e9 \u65e5\u672c \uD83D\uDE00");
        return new Binding("sips:alice@[2001:db8::1]:5061;transport=tcp", params, AT, 750, "call-\u0000-id@host",
                4_294_967_295L, Optional.of("<urn:uuid:f81d4fae-7dec-11d0-a765-00a0c91e6bf6>"), OptionalInt.of(1),
                List.of("<sip:edge1.example.com;lr>", "<sip:edge2.example.com;lr;ob>"),
                new HostPort("2001:db8::1", 65535), "TLS");
    }

    private static Binding minimal() {
        return new Binding("sip:b@x", Map.of(), Instant.EPOCH, Binding.Q_UNSPECIFIED, "c", 0, Optional.empty(),
                OptionalInt.empty(), List.of(), new HostPort("h", 0), "");
    }

    private static BindingSet roundTrip(BindingSet s) {
        return BindingCodec.decode(BindingCodec.encode(s));
    }

    @Test
    void emptySetRoundTrips() {
        assertEquals(BindingSet.EMPTY, roundTrip(BindingSet.EMPTY));
    }

    @Test
    void everyFieldRoundTrips() {
        BindingSet s = new BindingSet(List.of(full(), minimal()));
        BindingSet back = roundTrip(s);
        assertEquals(s, back);
        Binding b = back.bindings().get(0);
        assertEquals(AT, b.expiresAt(), "millisecond precision survives");
        assertEquals(List.copyOf(full().params().keySet()), List.copyOf(b.params().keySet()), "parameter order");
        assertEquals(full().path(), b.path(), "path order");
    }

    @Test
    void absentOptionalsAndUnspecifiedQRoundTrip() {
        Binding b = roundTrip(new BindingSet(List.of(minimal()))).bindings().get(0);
        assertTrue(b.instanceId().isEmpty());
        assertTrue(b.regId().isEmpty());
        assertEquals(Binding.Q_UNSPECIFIED, b.q());
        assertTrue(b.path().isEmpty());
        assertTrue(b.params().isEmpty());
        assertEquals("", b.transport());
    }

    @Test
    void emptyStringInstanceIsNotConfusedWithAbsentInstance() {
        Binding b = new Binding("sip:b@x", Map.of(), AT, 0, "c", 1, Optional.of(""), OptionalInt.empty(), List.of(),
                new HostPort("h", 1), "UDP");
        assertEquals(Optional.of(""), roundTrip(new BindingSet(List.of(b))).bindings().get(0).instanceId());
    }

    @Test
    void nulCharactersAndUnicodeRoundTrip() {
        String odd = "\u0000a\u0000\u00ff\u4e2d\uD83C\uDF89\u0000";
        Binding b = new Binding(odd, Map.of(odd, odd), AT, 1000, odd, 1, Optional.of(odd), OptionalInt.of(9),
                List.of(odd, ""), new HostPort("h", 1), odd);
        assertEquals(new BindingSet(List.of(b)), roundTrip(new BindingSet(List.of(b))));
    }

    @Test
    void longValuesRoundTrip() {
        String big = "x".repeat(200_000) + "\u00e9".repeat(100_000);
        Binding b = new Binding("sip:" + big + "@x", Map.of("p", big), AT, 1, big, 1, Optional.of(big),
                OptionalInt.of(Integer.MAX_VALUE), List.of(big), new HostPort("h", 1), "UDP");
        assertEquals(new BindingSet(List.of(b)), roundTrip(new BindingSet(List.of(b))));
    }

    @Test
    void manyBindingsRoundTripInOrder() {
        List<Binding> list = new ArrayList<>();
        for (int i = 0; i < 500; i++) {
            list.add(new Binding("sip:u" + i + "@x", Map.of("i", Integer.toString(i)), AT.plusSeconds(i), i % 1001,
                    "call" + i, i, Optional.empty(), OptionalInt.empty(), List.of(), new HostPort("h", i), "UDP"));
        }
        assertEquals(new BindingSet(list), roundTrip(new BindingSet(list)));
    }

    @Test
    void extremeInstantsRoundTrip() {
        for (Instant t : List.of(Instant.ofEpochMilli(Long.MAX_VALUE), Instant.ofEpochMilli(Long.MIN_VALUE))) {
            Binding b = new Binding("sip:b@x", Map.of(), t, 0, "c", 1, Optional.empty(), OptionalInt.empty(),
                    List.of(), new HostPort("h", 1), "UDP");
            assertEquals(t, roundTrip(new BindingSet(List.of(b))).bindings().get(0).expiresAt());
        }
    }

    @Test
    void encodingIsDeterministic() {
        BindingSet s = new BindingSet(List.of(full(), minimal()));
        assertArrayEquals(BindingCodec.encode(s), BindingCodec.encode(roundTrip(s)));
    }

    @Test
    void fieldTooLongForAnyReaderIsRefusedWhenWriting() {
        Binding b = new Binding("sip:b@x", Map.of(), AT, 0, "c".repeat((1 << 20) + 1), 1, Optional.empty(),
                OptionalInt.empty(), List.of(), new HostPort("h", 1), "UDP");
        assertThrows(IllegalArgumentException.class, () -> BindingCodec.encode(new BindingSet(List.of(b))));
    }

    // ---- rejection --------------------------------------------------------------

    private static void assertCorrupt(byte[] data) {
        assertThrows(IllegalArgumentException.class, () -> BindingCodec.decode(data));
    }

    @Test
    void emptyInputIsRejected() {
        assertCorrupt(new byte[0]);
    }

    @Test
    void nullInputIsRejected() {
        assertCorrupt(null);
    }

    @ParameterizedTest
    @ValueSource(bytes = {0, 2, 9, -1, 127})
    void unknownVersionIsRejected(byte version) {
        byte[] data = BindingCodec.encode(new BindingSet(List.of(minimal())));
        data[0] = version;
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> BindingCodec.decode(data));
        assertTrue(e.getMessage().contains("version"), e.getMessage());
    }

    @Test
    void everyTruncationIsRejected() {
        byte[] data = BindingCodec.encode(new BindingSet(List.of(full(), minimal())));
        for (int len = 0; len < data.length; len++) {
            byte[] cut = java.util.Arrays.copyOf(data, len);
            assertThrows(IllegalArgumentException.class, () -> BindingCodec.decode(cut), "truncated to " + len);
        }
    }

    @Test
    void trailingBytesAreRejected() {
        byte[] data = BindingCodec.encode(new BindingSet(List.of(minimal())));
        assertCorrupt(java.util.Arrays.copyOf(data, data.length + 1));
    }

    @ParameterizedTest
    @ValueSource(ints = {Integer.MAX_VALUE, Integer.MIN_VALUE, -1, (1 << 16) + 1, 1 << 30})
    void hugeOrNegativeBindingCountIsRejectedWithoutAllocating(int count) throws IOException {
        assertCorrupt(header(count).toByteArray());
    }

    @ParameterizedTest
    @ValueSource(ints = {Integer.MAX_VALUE, Integer.MIN_VALUE, -1, (1 << 20) + 1})
    void hugeOrNegativeStringLengthIsRejectedWithoutAllocating(int length) throws IOException {
        ByteArrayOutputStream bytes = header(1);
        new DataOutputStream(bytes).writeInt(length);
        assertCorrupt(bytes.toByteArray());
    }

    @Test
    void declaredStringLongerThanTheInputIsRejected() throws IOException {
        ByteArrayOutputStream bytes = header(1);
        DataOutputStream out = new DataOutputStream(bytes);
        out.writeInt(1 << 20);
        out.write(new byte[10]);
        assertCorrupt(bytes.toByteArray());
    }

    @Test
    void declaredCountLargerThanTheInputIsRejected() throws IOException {
        assertCorrupt(header(1 << 16).toByteArray());
    }

    @Test
    void outOfRangeFieldsAreRejectedAsCorrupt() {
        byte[] good = BindingCodec.encode(new BindingSet(List.of(minimal())));
        // Layout of minimal(): version(1) count(4) contact(4+7) params(4) expires(8) q(4) ...
        int qOffset = 1 + 4 + 4 + 7 + 4 + 8;
        byte[] badQ = good.clone();
        badQ[qOffset] = 0x7f;
        assertCorrupt(badQ);
        int cseqOffset = qOffset + 4 + 4 + 1;
        byte[] badCseq = good.clone();
        badCseq[cseqOffset] = (byte) 0x80;
        assertCorrupt(badCseq);
    }

    @Test
    void randomCorruptionNeverThrowsAnythingButIllegalArgument() {
        byte[] good = BindingCodec.encode(new BindingSet(List.of(full(), minimal(), full())));
        Random random = new Random(20240501);
        for (int round = 0; round < 5_000; round++) {
            byte[] bad = good.clone();
            int flips = 1 + random.nextInt(4);
            for (int f = 0; f < flips; f++) {
                bad[random.nextInt(bad.length)] = (byte) random.nextInt(256);
            }
            try {
                BindingCodec.decode(bad);
            } catch (IllegalArgumentException expected) {
                // fine: corrupt input is refused with the documented exception
            } catch (RuntimeException | Error other) {
                throw new AssertionError("round " + round + " threw " + other, other);
            }
        }
    }

    @Test
    void randomBytesNeverThrowAnythingButIllegalArgument() {
        Random random = new Random(7);
        for (int round = 0; round < 5_000; round++) {
            byte[] junk = new byte[random.nextInt(64)];
            random.nextBytes(junk);
            if (junk.length > 0 && random.nextBoolean()) {
                junk[0] = 1;
            }
            try {
                BindingCodec.decode(junk);
            } catch (IllegalArgumentException expected) {
                // fine
            } catch (RuntimeException | Error other) {
                throw new AssertionError("round " + round + " threw " + other, other);
            }
        }
    }

    private static ByteArrayOutputStream header(int count) throws IOException {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        DataOutputStream out = new DataOutputStream(bytes);
        out.writeByte(1);
        out.writeInt(count);
        return bytes;
    }
}
