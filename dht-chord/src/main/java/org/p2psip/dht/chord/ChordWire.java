package org.p2psip.dht.chord;

import java.math.BigInteger;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;

import org.p2psip.core.net.HostPort;
import org.p2psip.core.overlay.PayloadReader;
import org.p2psip.core.overlay.PayloadWriter;

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
    static final int OWNER_WRITE = 16;
    static final int HAND_BACK = 17;
    /** Replaces the unpaged FETCH_RANGE (15), which moved a whole range inside one RPC timeout. */
    static final int FETCH_PAGE = 18;
    /** Asked by a node about to join, with SHA-1 of its address: the id it should take ({@link JoinPlacement}). */
    static final int PLACE = 19;

    /** Conditional-write answers. */
    static final byte APPLIED = 0;
    static final byte CONFLICT = 1;
    static final byte NOT_OWNER = 2;

    /** Read answers ({@link #NOT_OWNER} too, when asked as the owner). */
    static final byte FOUND = 3;
    static final byte NOT_FOUND = 4;

    private ChordWire() {
    }

    /** Payload builder: core's primitives plus Chord's node references and stored entries. */
    static final class Out extends PayloadWriter<Out> {

        @Override
        protected Out self() {
            return this;
        }

        Out id(BigInteger id) {
            return blob(id.toByteArray());
        }

        Out node(NodeRef n) {
            id(n.id()).hostPort(n.overlay()).flag(n.sip().isPresent());
            n.sip().ifPresent(this::hostPort);
            return this;
        }

        /** A flag, then the text when there is one. */
        Out optionalText(Optional<String> t) {
            flag(t.isPresent());
            t.ifPresent(this::text);
            return this;
        }

        Out optionalNode(Optional<NodeRef> n) {
            flag(n.isPresent());
            n.ifPresent(this::node);
            return this;
        }

        Out nodes(List<NodeRef> list) {
            u16(list.size());
            list.forEach(this::node);
            return this;
        }

        Out entry(StoredEntry e) {
            return text(e.key()).blob(e.value()).num(e.version()).num(e.expiresAt().toEpochMilli());
        }

        /** A count, then each entry. */
        Out entries(List<StoredEntry> list) {
            num(list.size());
            list.forEach(this::entry);
            return this;
        }

        /** A count, then each removal's key and the version removed. */
        Out removals(List<KeyStore.Removal> list) {
            num(list.size());
            list.forEach(r -> text(r.key()).num(r.version()));
            return this;
        }

        /** A flag, then the number when there is one. */
        Out optionalNum(OptionalLong n) {
            flag(n.isPresent());
            n.ifPresent(this::num);
            return this;
        }
    }

    /** Payload reader; a malformed payload fails the request, never the node. */
    static final class In extends PayloadReader {

        In(byte[] payload) {
            super(payload, "chord");
        }

        BigInteger id() {
            return new BigInteger(blob());
        }

        NodeRef node() {
            BigInteger id = id();
            HostPort overlay = hostPort();
            Optional<HostPort> sip = flag() ? Optional.of(hostPort()) : Optional.empty();
            return new NodeRef(id, overlay, sip);
        }

        Optional<String> optionalText() {
            return flag() ? Optional.of(text()) : Optional.empty();
        }

        Optional<NodeRef> optionalNode() {
            return flag() ? Optional.of(node()) : Optional.empty();
        }

        List<NodeRef> nodes() {
            int n = u16();
            if (n > 1024) {
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

        /** A count, then each entry; a count beyond the payload fails on the first missing entry. */
        List<StoredEntry> entries() {
            long n = num();
            List<StoredEntry> out = new ArrayList<>();
            for (long i = 0; i < n; i++) {
                out.add(entry());
            }
            return out;
        }

        /** A count, then each removal; a count beyond the payload fails on the first missing one. */
        List<KeyStore.Removal> removals() {
            long n = num();
            List<KeyStore.Removal> out = new ArrayList<>();
            for (long i = 0; i < n; i++) {
                out.add(new KeyStore.Removal(text(), num()));
            }
            return out;
        }

        OptionalLong optionalNum() {
            return flag() ? OptionalLong.of(num()) : OptionalLong.empty();
        }
    }
}
