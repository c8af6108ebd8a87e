package org.p2psip.core.overlay;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Arrays;

import org.junit.jupiter.api.Test;
import org.p2psip.core.net.HostPort;

class PayloadWriterReaderTest {

    /** The smallest extension: the primitives only. */
    private static final class Plain extends PayloadWriter<Plain> {
        @Override
        protected Plain self() {
            return this;
        }
    }

    @Test
    void everyFieldReadsBackInTheOrderWritten() {
        byte[] payload = new Plain().code((byte) 7).flag(true).u16(65535).num(-42L).text("sip:alice@example.com")
                .blob(new byte[] {1, 2, 3}).raw(new byte[] {9, 9}).hostPort(new HostPort("127.0.0.1", 5060))
                .flag(false).bytes();
        PayloadReader in = new PayloadReader(payload, "test");
        assertEquals(7, in.code());
        assertTrue(in.flag());
        assertEquals(65535, in.u16());
        assertEquals(-42L, in.num());
        assertEquals("sip:alice@example.com", in.text());
        assertArrayEquals(new byte[] {1, 2, 3}, in.blob());
        assertArrayEquals(new byte[] {9, 9}, in.raw(2));
        assertEquals(new HostPort("127.0.0.1", 5060), in.hostPort());
        assertFalse(in.flag());
    }

    @Test
    void aTruncatedPayloadIsAnIllegalArgumentNamingTheProtocol() {
        byte[] payload = new Plain().text("a key").num(1).bytes();
        PayloadReader in = new PayloadReader(Arrays.copyOf(payload, payload.length - 3), "chord");
        assertEquals("a key", in.text());
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, in::num);
        assertTrue(e.getMessage().contains("chord"), e.getMessage());
    }

    @Test
    void aBlobLengthBeyondThePayloadIsRefusedBeforeAllocating() {
        byte[] payload = new Plain().num(0).bytes();
        payload[0] = 0x7f;
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> new PayloadReader(payload, "kademlia").blob());
        assertTrue(e.getMessage().contains("length"), e.getMessage());
    }

    @Test
    void aPortOutsideSixteenBitsIsAWriterError() {
        assertThrows(IllegalArgumentException.class, () -> new Plain().u16(70000));
    }
}
