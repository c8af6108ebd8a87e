package org.p2psip.balancer;

import java.util.concurrent.atomic.LongAdder;

/**
 * What the balancer did with its input, for tests and operators. Dropped
 * messages are counted rather than logged one by one, so garbage on the
 * wire cannot flood the log (RFC 3261 §18.3 lets a UDP element discard
 * what it cannot parse).
 */
public final class BalancerCounters {

    private final LongAdder malformed = new LongAdder();
    private final LongAdder foreignResponses = new LongAdder();
    private final LongAdder requestsForwarded = new LongAdder();
    private final LongAdder responsesForwarded = new LongAdder();
    private final LongAdder answeredLocally = new LongAdder();
    private final LongAdder undeliverable = new LongAdder();
    private final LongAdder flowFailed = new LongAdder();
    private final LongAdder streamsClosed = new LongAdder();
    private final LongAdder sourceDropped = new LongAdder();
    private final LongAdder overBudget = new LongAdder();
    private final LongAdder connectionsRefused = new LongAdder();
    private final LongAdder idleClosed = new LongAdder();
    private final LongAdder deadlineClosed = new LongAdder();
    private final LongAdder madeRoom = new LongAdder();
    private final LongAdder refusedOversized = new LongAdder();
    private final LongAdder pongs = new LongAdder();
    private final LongAdder diverted = new LongAdder();
    private final LongAdder failedOver = new LongAdder();
    private final LongAdder challenged = new LongAdder();
    /** Requests from clients sent to each node, by node index: the balancer's per-node traffic. */
    private final LongAdder[] toNode = new LongAdder[BalancerSettings.MAX_NODES];

    public BalancerCounters() {
        for (int i = 0; i < toNode.length; i++) {
            toNode[i] = new LongAdder();
        }
    }

    /** Requests from clients sent to the node with {@code index} (its place in {@code --nodes}). */
    public long requestsTo(int index) {
        return toNode[index].sum();
    }

    /** Messages dropped because they are not valid SIP. */
    public long malformed() {
        return malformed.sum();
    }

    /** Responses dropped because their top Via is not this balancer's. */
    public long foreignResponses() {
        return foreignResponses.sum();
    }

    public long requestsForwarded() {
        return requestsForwarded.sum();
    }

    public long responsesForwarded() {
        return responsesForwarded.sum();
    }

    /** Requests the balancer answered itself: 503 (no node up), 483, 482. */
    public long answeredLocally() {
        return answeredLocally.sum();
    }

    /** Messages with nowhere to go: ACK with no node up, a TCP client gone, too big for UDP. */
    public long undeliverable() {
        return undeliverable.sum();
    }

    /** TCP and TLS connections closed because their stream could not be framed or broke a size limit. */
    public long streamsClosed() {
        return streamsClosed.sum();
    }

    /** Messages dropped unanswered because their source was over its rate or banned. */
    public long sourceDropped() {
        return sourceDropped.sum();
    }

    /**
     * Requests without credentials dropped because more arrived, from all
     * clients together, than the balancer's {@code --unauthenticated-rate}.
     */
    public long overBudget() {
        return overBudget.sum();
    }

    /** Connections closed on accept: a banned source, or the total or per-source cap reached. */
    public long connectionsRefused() {
        return connectionsRefused.sum();
    }

    /** Connections closed because nothing came for the idle timeout. */
    public long idleClosed() {
        return idleClosed.sum();
    }

    /** Connections that had sent no whole message, closed to make room for a new one ({@link ConnectionGate}). */
    public long madeRoom() {
        return madeRoom.sum();
    }

    /** Connections closed because a message (or the TLS handshake) did not finish within the deadline. */
    public long deadlineClosed() {
        return deadlineClosed.sum();
    }

    /** Messages over a size limit (whole message, header line): answered 513 or 400 when possible, never forwarded. */
    public long refusedOversized() {
        return refusedOversized.sum();
    }

    /** RFC 5626 CRLF keep-alive pings answered. */
    public long pongs() {
        return pongs.sum();
    }

    /** New requests sent to another node than their first choice because it shed load (503, RFC 7339 oc). */
    public long diverted() {
        return diverted.sum();
    }

    void countMalformed() {
        malformed.increment();
    }

    void countForeignResponse() {
        foreignResponses.increment();
    }

    void countRequestForwarded() {
        requestsForwarded.increment();
    }

    void countRequestForwardedTo(int node) {
        requestsForwarded.increment();
        toNode[node].increment();
    }

    void countResponseForwarded() {
        responsesForwarded.increment();
    }

    void countAnsweredLocally() {
        answeredLocally.increment();
    }

    /** Requests for a client flow whose connection was gone, or whose token was not ours: answered 430. */
    public long flowFailed() {
        return flowFailed.sum();
    }

    void countFlowFailed() {
        flowFailed.increment();
    }

    void countUndeliverable() {
        undeliverable.increment();
    }

    void countStreamClosed() {
        streamsClosed.increment();
    }

    void countSourceDropped() {
        sourceDropped.increment();
    }

    void countOverBudget() {
        overBudget.increment();
    }

    void countConnectionRefused() {
        connectionsRefused.increment();
    }

    void countIdleClosed() {
        idleClosed.increment();
    }

    void countDeadlineClosed() {
        deadlineClosed.increment();
    }

    void countMadeRoom() {
        madeRoom.increment();
    }

    void countRefusedOversized() {
        refusedOversized.increment();
    }

    void countPong() {
        pongs.increment();
    }

    void countDiverted() {
        diverted.increment();
    }

    /** New non-INVITE requests a node refused with 503 that the balancer sent on to another node. */
    public long failedOver() {
        return failedOver.sum();
    }

    void countFailedOver() {
        failedOver.increment();
    }

    /** REGISTERs without credentials the balancer challenged itself ({@link EdgeChallengeHandler}). */
    public long challenged() {
        return challenged.sum();
    }

    void countChallenged() {
        challenged.increment();
    }

    @Override
    public String toString() {
        return "forwarded " + requestsForwarded() + " requests, " + responsesForwarded() + " responses; answered "
                + answeredLocally() + ", challenged " + challenged() + "; dropped " + malformed() + " malformed, "
                + foreignResponses()
                + " foreign responses, " + undeliverable() + " undeliverable, " + flowFailed() + " to closed flows, "
                + sourceDropped() + " from limited sources, " + overBudget() + " over the budget without credentials, "
                + refusedOversized() + " oversized; diverted " + diverted() + ", failed over "
                + failedOver() + "; refused " + connectionsRefused()
                + " connections; closed " + streamsClosed() + " streams, " + idleClosed() + " idle, "
                + deadlineClosed() + " past the deadline";
    }
}
