package org.p2psip.dht.chord;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.math.BigInteger;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

import org.p2psip.core.net.HostPort;

/**
 * The Chord message types on the overlay transport and their payload
 * layouts (big-endian, strings as modified UTF-8). One constant per message;
 * {@link ChordClient} has one method per message.
 */
final class ChordWire {

    static final int NEXT_HOP = 1;
    static final int NEIGHBOURS = 2;
    static final int NOTIFY = 3;
    static final int PING = 4;
    static final int GET = 10;
    static final int PUT_IF = 11;
    static final int REMOVE_IF = 12;
    static final int REPLICATE = 13;
    static final int LEAVING = 14;
    static final int FETCH_RANGE = 15;

    /** Conditional-write answers. */
    static final byte APPLIED = 0;
    static final byte CONFLICT = 1;
    static final byte NOT_OWNER = 2;

    /** Read answers ({@link #NOT_OWNER} too, when asked as the owner). */
    static final byte FOUND = 3;
    static final byte NOT_FOUND = 4;

    private ChordWire() {
    }

    /** Payload builder. */
    static final class Out {
        private final ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        private final DataOutputStream out = new DataOutputStream(bytes);

        Out id(BigInteger id) {
            return blob(id.toByteArray());
        }

        Out blob(byte[] b) {
            try {
                out.writeInt(b.length);
                out.write(b);
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
            return this;
        }

        Out text(String s) {
            try {
                out.writeUTF(s);
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
            return this;
        }

        Out num(long v) {
            try {
                out.writeLong(v);
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
            return this;
        }

        Out code(byte b) {
            try {
                out.writeByte(b);
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
            return this;
        }

        Out flag(boolean b) {
            try {
                out.writeBoolean(b);
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
            return this;
        }

        Out hostPort(HostPort hp) {
            return text(hp.host()).num(hp.port());
        }

        Out node(NodeRef n) {
            id(n.id()).hostPort(n.overlay()).flag(n.sip().isPresent());
            n.sip().ifPresent(this::hostPort);
            return this;
        }

        Out optionalNode(Optional<NodeRef> n) {
            flag(n.isPresent());
            n.ifPresent(this::node);
            return this;
        }

        Out nodes(List<NodeRef> list) {
            num(list.size());
            list.forEach(this::node);
            return this;
        }

        Out entry(StoredEntry e) {
            return text(e.key()).blob(e.value()).num(e.version()).num(e.expiresAt().toEpochMilli());
        }

        byte[] bytes() {
            return bytes.toByteArray();
        }
    }

    /** Payload reader; a malformed payload fails the request, never the node. */
    static final class In {
        private final DataInputStream in;
        private final int limit;

        In(byte[] payload) {
            this.in = new DataInputStream(new ByteArrayInputStream(payload));
            this.limit = payload.length;
        }

        BigInteger id() {
            return new BigInteger(blob());
        }

        byte[] blob() {
            try {
                int n = in.readInt();
                if (n < 0 || n > limit) {
                    throw new IllegalArgumentException("malformed chord payload: length " + n);
                }
                return in.readNBytes(n);
            } catch (IOException e) {
                throw new IllegalArgumentException("malformed chord payload", e);
            }
        }

        String text() {
            try {
                return in.readUTF();
            } catch (IOException e) {
                throw new IllegalArgumentException("malformed chord payload", e);
            }
        }

        long num() {
            try {
                return in.readLong();
            } catch (IOException e) {
                throw new IllegalArgumentException("malformed chord payload", e);
            }
        }

        boolean flag() {
            try {
                return in.readBoolean();
            } catch (IOException e) {
                throw new IllegalArgumentException("malformed chord payload", e);
            }
        }

        byte code() {
            try {
                return in.readByte();
            } catch (IOException e) {
                throw new IllegalArgumentException("malformed chord payload", e);
            }
        }

        HostPort hostPort() {
            return new HostPort(text(), (int) num());
        }

        NodeRef node() {
            BigInteger id = id();
            HostPort overlay = hostPort();
            Optional<HostPort> sip = flag() ? Optional.of(hostPort()) : Optional.empty();
            return new NodeRef(id, overlay, sip);
        }

        Optional<NodeRef> optionalNode() {
            return flag() ? Optional.of(node()) : Optional.empty();
        }

        List<NodeRef> nodes() {
            long n = num();
            if (n < 0 || n > 1024) {
                throw new IllegalArgumentException("malformed chord payload: " + n + " nodes");
            }
            List<NodeRef> out = new ArrayList<>();
            for (int i = 0; i < n; i++) {
                out.add(node());
            }
            return out;
        }

        StoredEntry entry() {
            return new StoredEntry(text(), blob(), num(), Instant.ofEpochMilli(num()));
        }
    }
}
