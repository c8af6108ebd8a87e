package org.p2psip.core.location;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;

import org.p2psip.core.net.HostPort;

/**
 * The wire and storage form of a {@link BindingSet}: a version byte, then
 * length-prefixed UTF-8 strings and fixed-width numbers. Every node of a
 * cluster reads what any other wrote, so the layout changes only with a new
 * version byte.
 */
public final class BindingCodec {

    private static final byte VERSION = 1;
    /** Bounds a corrupt or hostile length field before it allocates. */
    private static final int MAX_STRING_BYTES = 1 << 20;
    private static final int MAX_ITEMS = 1 << 16;

    private BindingCodec() {
    }

    public static byte[] encode(BindingSet set) {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream(128 * Math.max(1, set.size()));
        try (DataOutputStream out = new DataOutputStream(bytes)) {
            out.writeByte(VERSION);
            writeCount(out, set.size());
            for (Binding b : set.bindings()) {
                writeString(out, b.contact());
                writeCount(out, b.params().size());
                for (Map.Entry<String, String> e : b.params().entrySet()) {
                    writeString(out, e.getKey());
                    writeString(out, e.getValue());
                }
                out.writeLong(b.expiresAt().toEpochMilli());
                out.writeInt(b.q());
                writeString(out, b.callId());
                out.writeLong(b.cseq());
                out.writeBoolean(b.instanceId().isPresent());
                if (b.instanceId().isPresent()) {
                    writeString(out, b.instanceId().get());
                }
                out.writeInt(b.regId().orElse(-1));
                writeCount(out, b.path().size());
                for (String p : b.path()) {
                    writeString(out, p);
                }
                writeString(out, b.source().host());
                out.writeShort(b.source().port());
                writeString(out, b.transport());
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return bytes.toByteArray();
    }

    /** @throws IllegalArgumentException when the bytes are not a binding set of a known version */
    public static BindingSet decode(byte[] data) {
        if (data == null) {
            throw new IllegalArgumentException("no binding-set bytes");
        }
        try (DataInputStream in = new DataInputStream(new ByteArrayInputStream(data))) {
            byte version = in.readByte();
            if (version != VERSION) {
                throw new IllegalArgumentException("unknown binding-set version " + version);
            }
            int count = count(in);
            List<Binding> bindings = new ArrayList<>(count);
            for (int i = 0; i < count; i++) {
                String contact = readString(in);
                int paramCount = count(in);
                Map<String, String> params = new LinkedHashMap<>();
                for (int j = 0; j < paramCount; j++) {
                    params.put(readString(in), readString(in));
                }
                Instant expiresAt = Instant.ofEpochMilli(in.readLong());
                int q = in.readInt();
                String callId = readString(in);
                long cseq = in.readLong();
                Optional<String> instance = in.readBoolean() ? Optional.of(readString(in)) : Optional.empty();
                int reg = in.readInt();
                OptionalInt regId = reg < 0 ? OptionalInt.empty() : OptionalInt.of(reg);
                int pathCount = count(in);
                List<String> path = new ArrayList<>(pathCount);
                for (int j = 0; j < pathCount; j++) {
                    path.add(readString(in));
                }
                HostPort source = new HostPort(readString(in), in.readUnsignedShort());
                String transport = readString(in);
                bindings.add(new Binding(contact, params, expiresAt, q, callId, cseq, instance, regId,
                        path, source, transport));
            }
            if (in.available() > 0) {
                throw new IllegalArgumentException("trailing bytes after binding set");
            }
            return new BindingSet(bindings);
        } catch (IOException e) {
            throw new IllegalArgumentException("truncated binding set", e);
        }
    }

    private static void writeCount(DataOutputStream out, int n) throws IOException {
        if (n > MAX_ITEMS) {
            throw new IllegalArgumentException("binding set has more than " + MAX_ITEMS + " items in one list");
        }
        out.writeInt(n);
    }

    private static int count(DataInputStream in) throws IOException {
        int n = in.readInt();
        if (n < 0 || n > MAX_ITEMS) {
            throw new IllegalArgumentException("binding set has a bad count " + n);
        }
        return n;
    }

    private static void writeString(DataOutputStream out, String s) throws IOException {
        byte[] b = s.getBytes(StandardCharsets.UTF_8);
        if (b.length > MAX_STRING_BYTES) {
            // decode would refuse it: refuse to write what no node could read back
            throw new IllegalArgumentException("binding field of " + b.length + " bytes exceeds "
                    + MAX_STRING_BYTES);
        }
        out.writeInt(b.length);
        out.write(b);
    }

    private static String readString(DataInputStream in) throws IOException {
        int n = in.readInt();
        if (n < 0 || n > MAX_STRING_BYTES) {
            throw new IllegalArgumentException("binding set has a bad string length " + n);
        }
        byte[] b = in.readNBytes(n);
        if (b.length != n) {
            throw new IOException("truncated");
        }
        return new String(b, StandardCharsets.UTF_8);
    }
}
