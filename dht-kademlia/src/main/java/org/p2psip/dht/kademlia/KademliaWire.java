package org.p2psip.dht.kademlia;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.math.BigInteger;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

import org.p2psip.core.net.HostPort;

/**
 * Payload layouts of the kademlia messages (inside core's authenticated
 * overlay frame). Every request starts with the sender's contact, because
 * in Kademlia every message received updates the receiver's k-buckets (§2.2).
 */
final class KademliaWire {

    static final int PING = 1;
    static final int FIND_NODE = 2;
    static final int FIND_VALUE = 3;
    static final int STORE = 4;
    /** A conditional write sent to the key's coordinator (the closest live node). */
    static final int WRITE = 5;

    /** The coordinator's answer when it knows a node closer to the key than itself. */
    static final String NOT_COORDINATOR = "not the coordinator for this key";

    private static final int ID_BYTES = 20;
    private static final int MAX_CONTACTS = 1000;

    private KademliaWire() {
    }

    /** Writes fields in order, for one message. */
    static final class Out {
        private final ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        private final DataOutputStream out = new DataOutputStream(bytes);

        Out contact(Contact c) {
            id(c.id());
            string(c.overlay().host());
            u16(c.overlay().port());
            try {
                out.writeBoolean(c.sip().isPresent());
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
            c.sip().ifPresent(s -> {
                string(s.host());
                u16(s.port());
            });
            return this;
        }

        Out contacts(List<Contact> list) {
            u16(list.size());
            list.forEach(this::contact);
            return this;
        }

        Out id(BigInteger id) {
            byte[] raw = id.toByteArray();
            byte[] fixed = new byte[ID_BYTES];
            int copy = Math.min(raw.length, ID_BYTES);
            System.arraycopy(raw, raw.length - copy, fixed, ID_BYTES - copy, copy);
            return raw(fixed);
        }

        Out string(String s) {
            try {
                out.writeUTF(s);
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
            return this;
        }

        Out u16(int v) {
            try {
                out.writeShort(v);
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
            return this;
        }

        Out i64(long v) {
            try {
                out.writeLong(v);
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
            return this;
        }

        Out bool(boolean v) {
            try {
                out.writeBoolean(v);
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
            return this;
        }

        Out bytes(byte[] b) {
            try {
                out.writeInt(b.length);
                out.write(b);
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
            return this;
        }

        Out value(Optional<StoredValue> v) {
            bool(v.isPresent());
            v.ifPresent(s -> bytes(s.value()).i64(s.version()).i64(s.expiresAtMillis()).bool(s.tombstone()).i64(s.writeId()));
            return this;
        }

        private Out raw(byte[] b) {
            try {
                out.write(b);
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
            return this;
        }

        byte[] done() {
            return bytes.toByteArray();
        }
    }

    /** Reads fields in the order {@link Out} wrote them; malformed input throws IllegalArgumentException. */
    static final class In {
        private final DataInputStream in;
        private final int length;

        In(byte[] payload) {
            this.in = new DataInputStream(new ByteArrayInputStream(payload));
            this.length = payload.length;
        }

        Contact contact() {
            BigInteger id = id();
            HostPort overlay = new HostPort(string(), u16());
            Optional<HostPort> sip = bool() ? Optional.of(new HostPort(string(), u16())) : Optional.empty();
            return new Contact(id, overlay, sip);
        }

        List<Contact> contacts() {
            int n = u16();
            if (n > MAX_CONTACTS) {
                throw new IllegalArgumentException("too many contacts: " + n);
            }
            List<Contact> list = new ArrayList<>(n);
            for (int i = 0; i < n; i++) {
                list.add(contact());
            }
            return list;
        }

        BigInteger id() {
            byte[] b = new byte[ID_BYTES];
            try {
                in.readFully(b);
            } catch (IOException e) {
                throw new IllegalArgumentException("truncated kademlia message");
            }
            return new BigInteger(1, b);
        }

        String string() {
            try {
                return in.readUTF();
            } catch (IOException e) {
                throw new IllegalArgumentException("truncated kademlia message");
            }
        }

        int u16() {
            try {
                return in.readUnsignedShort();
            } catch (IOException e) {
                throw new IllegalArgumentException("truncated kademlia message");
            }
        }

        long i64() {
            try {
                return in.readLong();
            } catch (IOException e) {
                throw new IllegalArgumentException("truncated kademlia message");
            }
        }

        boolean bool() {
            try {
                return in.readBoolean();
            } catch (IOException e) {
                throw new IllegalArgumentException("truncated kademlia message");
            }
        }

        byte[] bytes() {
            try {
                int n = in.readInt();
                if (n < 0 || n > length) {
                    throw new IllegalArgumentException("bad value length " + n);
                }
                byte[] b = new byte[n];
                in.readFully(b);
                return b;
            } catch (IOException e) {
                throw new IllegalArgumentException("truncated kademlia message");
            }
        }

        Optional<StoredValue> value() {
            if (!bool()) {
                return Optional.empty();
            }
            return Optional.of(new StoredValue(bytes(), i64(), i64(), bool(), i64()));
        }
    }
}
