package org.p2psip.dht.kademlia;

import java.math.BigInteger;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

import org.p2psip.core.overlay.PayloadReader;
import org.p2psip.core.overlay.PayloadWriter;

/**
 * Payload layouts of the kademlia messages (inside core's authenticated
 * overlay frame). Every request starts with the sender's contact, because
 * in Kademlia every message received updates the receiver's k-buckets (§2.2),
 * and a flag saying whether it should: a node warming up before it takes its
 * share of the keys asks as a client and stays out of its peers' tables (as
 * BitTorrent's DHT lets read-only nodes do, BEP 43).
 */
final class KademliaWire {

    static final int PING = 1;
    static final int FIND_NODE = 2;
    static final int FIND_VALUE = 3;
    static final int STORE = 4;
    /** A conditional write sent to the key's coordinator (the closest live node). */
    static final int WRITE = 5;
    /** The second phase of a coordinated STORE: make the prepared version visible, or (flag set) drop it. */
    static final int COMMIT = 6;
    /**
     * Several keys' values for a holder that is new to them (a hand-over or a republish), each taken if it moves
     * the holder forward, as a STORE with no previous version is; the answer has one outcome per key, in order.
     */
    static final int REPAIR = 7;
    /** The most keys one REPAIR carries. */
    static final int MAX_REPAIRS = 64;

    /** The coordinator's answer when it knows a node closer to the key than itself. */
    static final String NOT_COORDINATOR = "not the coordinator for this key";

    private static final int ID_BYTES = 20;
    private static final int MAX_CONTACTS = 1000;

    private KademliaWire() {
    }

    /** One key's value in a {@link #REPAIR}. */
    record Repair(String key, StoredValue value) {

        Repair {
            Objects.requireNonNull(key, "key");
            Objects.requireNonNull(value, "value");
        }

        /** About what it takes on the wire: the key, the value and their lengths, version, expiry and write id. */
        int wireBytes() {
            return key.length() + value.value().length + 32;
        }
    }

    /** Writes fields in order, for one message: core's primitives plus contacts and stored values. */
    static final class Out extends PayloadWriter<Out> {

        @Override
        protected Out self() {
            return this;
        }

        Out contact(Contact c) {
            id(c.id()).hostPort(c.overlay()).flag(c.sip().isPresent());
            c.sip().ifPresent(this::hostPort);
            return this;
        }

        /** The sender of a request: its contact and whether the receiver should put it in its table. */
        Out sender(Contact c, boolean announced) {
            return contact(c).flag(announced);
        }

        Out contacts(List<Contact> list) {
            u16(list.size());
            list.forEach(this::contact);
            return this;
        }

        /** An id as exactly {@value #ID_BYTES} unsigned bytes. */
        Out id(BigInteger id) {
            byte[] unsigned = id.toByteArray();
            byte[] fixed = new byte[ID_BYTES];
            int copy = Math.min(unsigned.length, ID_BYTES);
            System.arraycopy(unsigned, unsigned.length - copy, fixed, ID_BYTES - copy, copy);
            return raw(fixed);
        }

        /** A REPAIR's keys and values, at most {@link #MAX_REPAIRS}. */
        Out repairs(List<Repair> repairs) {
            if (repairs.isEmpty() || repairs.size() > MAX_REPAIRS) {
                throw new IllegalArgumentException("a REPAIR carries 1 to " + MAX_REPAIRS + " keys, not "
                        + repairs.size());
            }
            u16(repairs.size());
            repairs.forEach(r -> text(r.key()).value(Optional.of(r.value())));
            return this;
        }

        /** A REPAIR's answer: the outcome of each key, in order. */
        Out outcomes(List<StoreOutcome> outcomes) {
            u16(outcomes.size());
            outcomes.forEach(o -> raw(o.answer()));
            return this;
        }

        Out value(Optional<StoredValue> v) {
            flag(v.isPresent());
            v.ifPresent(s -> blob(s.value()).num(s.version()).num(s.expiresAtMillis()).flag(s.tombstone())
                    .num(s.writeId()));
            return this;
        }
    }

    /** Reads fields in the order {@link Out} wrote them; malformed input throws IllegalArgumentException. */
    static final class In extends PayloadReader {

        In(byte[] payload) {
            super(payload, "kademlia");
        }

        Contact contact() {
            BigInteger id = id();
            return new Contact(id, hostPort(), flag() ? Optional.of(hostPort()) : Optional.empty());
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
            return new BigInteger(1, raw(ID_BYTES));
        }

        List<Repair> repairs() {
            int n = u16();
            if (n == 0 || n > MAX_REPAIRS) {
                throw new IllegalArgumentException("a REPAIR carries 1 to " + MAX_REPAIRS + " keys, not " + n);
            }
            List<Repair> list = new ArrayList<>(n);
            for (int i = 0; i < n; i++) {
                String key = text();
                list.add(new Repair(key, value().orElseThrow(() -> new IllegalArgumentException("REPAIR of " + key
                        + " without a value"))));
            }
            return list;
        }

        /** A REPAIR's answer; an outcome this node does not know counts as a refusal, as for a STORE. */
        List<StoreOutcome> outcomes() {
            int n = u16();
            if (n > MAX_REPAIRS) {
                throw new IllegalArgumentException("too many outcomes: " + n);
            }
            List<StoreOutcome> list = new ArrayList<>(n);
            for (int i = 0; i < n; i++) {
                list.add(StoreOutcome.of(raw(1)));
            }
            return list;
        }

        Optional<StoredValue> value() {
            if (!flag()) {
                return Optional.empty();
            }
            return Optional.of(new StoredValue(blob(), num(), num(), flag(), num()));
        }
    }
}
