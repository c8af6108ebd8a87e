package org.p2psip.core.overlay;

import java.io.ByteArrayInputStream;
import java.io.DataInputStream;
import java.io.IOException;

import org.p2psip.core.net.HostPort;

/**
 * Reads an overlay message's payload in the order a {@link PayloadWriter}
 * wrote it. Truncated or malformed input throws
 * {@link IllegalArgumentException}, which fails that one request (the
 * dispatcher answers it with an error) and never the node.
 */
public class PayloadReader {

    private final DataInputStream in;
    private final int length;
    private final String protocol;

    /** @param protocol names the protocol in error messages, e.g. "chord" */
    public PayloadReader(byte[] payload, String protocol) {
        this.in = new DataInputStream(new ByteArrayInputStream(payload));
        this.length = payload.length;
        this.protocol = protocol;
    }

    public byte code() {
        return read(in::readByte);
    }

    public boolean flag() {
        return read(in::readBoolean);
    }

    public int u16() {
        return read(in::readUnsignedShort);
    }

    public long num() {
        return read(in::readLong);
    }

    public String text() {
        return read(in::readUTF);
    }

    public byte[] blob() {
        int n = read(in::readInt);
        if (n < 0 || n > length) {
            throw new IllegalArgumentException("malformed " + protocol + " payload: length " + n);
        }
        return raw(n);
    }

    /** Exactly {@code n} bytes. */
    public byte[] raw(int n) {
        byte[] b = new byte[n];
        read(() -> {
            in.readFully(b);
            return b;
        });
        return b;
    }

    public HostPort hostPort() {
        return new HostPort(text(), u16());
    }

    private interface Field<T> {
        T read() throws IOException;
    }

    private <T> T read(Field<T> f) {
        try {
            return f.read();
        } catch (IOException e) {
            throw new IllegalArgumentException("truncated " + protocol + " payload", e);
        }
    }
}
