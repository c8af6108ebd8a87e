package org.p2psip.loadtest.bench;

/**
 * One unit of load — a registration, a call, a message — as pure logic:
 * it builds requests and decides what follows each final response. The
 * client transactions themselves (retransmission, timeouts) belong to the
 * lane that runs the flow; a flow runs one transaction at a time.
 */
public interface Flow {

    /** The first request; its transaction starts the flow. */
    Outgoing start();

    /** The final response to the current transaction's request. */
    Step onFinal(SipMessage response);

    /**
     * The current request again as a new client transaction (a new branch,
     * the next CSeq), to retry it after a 503's Retry-After as a phone
     * does (RFC 3261 §21.5.4); null when the flow does not retry.
     */
    default Outgoing again() {
        return null;
    }

    /**
     * The ACK to send again when a 2xx to this flow's INVITE is
     * retransmitted after the flow has moved on (the UAS retransmits its
     * 2xx until it sees the ACK, RFC 3261 §13.3.1.4), or null.
     */
    default Outgoing ackForRetransmittedTwoXx() {
        return null;
    }
}
