package org.p2psip.dht.chord;

import java.math.BigInteger;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * What a change in a node's {@link RangeCustody} asks of the node: messages
 * to send and keys to move ({@link KeyMover} sends them), and the custody
 * changes an operator needs to see in the log. {@link RangeCustody} decides
 * them without I/O, so the decisions can be checked on their own.
 */
sealed interface CustodyAction {

    /**
     * A new predecessor has not confirmed this node as its successor yet:
     * ask it now rather than next round, since serving waits for it.
     */
    record AskPredecessor() implements CustodyAction {
    }

    /**
     * The range shrank: the live keys with ids in {@code (from, upTo]} go to
     * {@code to}, the node now in front, which owns them.
     */
    record HandBack(NodeRef to, BigInteger from, BigInteger upTo) implements CustodyAction {

        public HandBack {
            Objects.requireNonNull(to, "to");
            Objects.requireNonNull(from, "from");
            Objects.requireNonNull(upTo, "upTo");
        }
    }

    /**
     * The range grew: ask every one of {@code sources} to push its keys of
     * {@code (from, to]} here before the range is served. When
     * {@code wholeRangeNeeded} (a joiner, which has nothing of the range yet)
     * one node that has served the whole range must be among those that
     * answered, or be found by walking the ring.
     */
    record Fetch(BigInteger from, BigInteger to, List<NodeRef> sources, boolean wholeRangeNeeded)
            implements CustodyAction {

        public Fetch {
            Objects.requireNonNull(from, "from");
            Objects.requireNonNull(to, "to");
            sources = List.copyOf(sources);
            if (sources.isEmpty()) {
                throw new IllegalArgumentException("a fetch needs at least one source");
            }
        }

        /**
         * Whether the sources' answers are enough to serve the range, given
         * for each whether it holds the whole range; if not, the ring is
         * walked for a node that does.
         */
        boolean settledBy(List<Boolean> holdsWhole) {
            return !wholeRangeNeeded || holdsWhole.contains(true);
        }
    }

    /**
     * Push every live key this node serves to {@code targets}, its replicas;
     * or, {@code changesOnly}, to each target that took such a push whole
     * before, only what changed here since (a target that did not still
     * gets every key).
     */
    record PushOwned(List<NodeRef> targets, boolean changesOnly) implements CustodyAction {

        /** Every key to every target. */
        PushOwned(List<NodeRef> targets) {
            this(targets, false);
        }

        public PushOwned {
            targets = List.copyOf(targets);
            if (targets.isEmpty()) {
                throw new IllegalArgumentException("a push needs at least one replica");
            }
        }
    }

    /**
     * This node has caught up on {@code (from, self]}, having served from
     * {@code was} before (empty: nothing); it serves the range once both
     * neighbours confirm it.
     */
    record CaughtUp(BigInteger from, Optional<BigInteger> was) implements CustodyAction {

        public CaughtUp {
            Objects.requireNonNull(from, "from");
            Objects.requireNonNull(was, "was");
        }
    }

    /** Every successor stopped answering: this node serves nothing while it looks for the ring. */
    record CutOff() implements CustodyAction {
    }

    /** No member of the ring answered for {@code rounds} rounds: this node serves every key alone. */
    record GaveUpOnRing(int rounds) implements CustodyAction {

        public GaveUpOnRing {
            if (rounds < 1) {
                throw new IllegalArgumentException("gave up after " + rounds + " rounds");
            }
        }
    }

    /**
     * No live node holds all of {@code (from, to]}: its last owner is gone,
     * and the range is served from the copies the replicas pushed here.
     */
    record ServedFromCopies(BigInteger from, BigInteger to) implements CustodyAction {

        public ServedFromCopies {
            Objects.requireNonNull(from, "from");
            Objects.requireNonNull(to, "to");
        }
    }
}
