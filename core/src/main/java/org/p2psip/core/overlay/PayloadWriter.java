package org.p2psip.core.overlay;

import java.io.ByteArrayOutputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;

import org.p2psip.core.net.HostPort;

/**
 * Builds an overlay message's payload field by field, big-endian, in the
 * order a {@link PayloadReader} reads them back. Each backend's wire class
 * extends it with its own types (node references, stored entries), so the
 * primitive layouts are written once.
 *
 * @param <W> the extending class, so that chained calls keep its methods
 */
public abstract class PayloadWriter<W extends PayloadWriter<W>> {

    private final ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    private final DataOutputStream out = new DataOutputStream(bytes);

    /** {@code this}, as the extending class. */
    protected abstract W self();

    /** One byte: a status or message code. */
    public W code(byte b) {
        return write(() -> out.writeByte(b));
    }

    public W flag(boolean b) {
        return write(() -> out.writeBoolean(b));
    }

    /** An unsigned 16-bit number: a port, a count. */
    public W u16(int v) {
        if (v < 0 || v > 0xFFFF) {
            throw new IllegalArgumentException("not an unsigned 16-bit number: " + v);
        }
        return write(() -> out.writeShort(v));
    }

    public W num(long v) {
        return write(() -> out.writeLong(v));
    }

    /** A string in modified UTF-8 with a 16-bit length. */
    public W text(String s) {
        return write(() -> out.writeUTF(s));
    }

    /** Bytes with a 32-bit length in front. */
    public W blob(byte[] b) {
        return write(() -> {
            out.writeInt(b.length);
            out.write(b);
        });
    }

    /** Bytes with no length: a field whose size both sides know. */
    public W raw(byte[] b) {
        return write(() -> out.write(b));
    }

    public W hostPort(HostPort hp) {
        return text(hp.host()).u16(hp.port());
    }

    /** The payload written so far. */
    public byte[] bytes() {
        return bytes.toByteArray();
    }

    private interface Field {
        void write() throws IOException;
    }

    private W write(Field f) {
        try {
            f.write();
        } catch (IOException e) {
            // A ByteArrayOutputStream does not fail; this is for the compiler.
            throw new UncheckedIOException(e);
        }
        return self();
    }
}
