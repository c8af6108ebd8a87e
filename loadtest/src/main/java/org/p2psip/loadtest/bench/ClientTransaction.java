package org.p2psip.loadtest.bench;

/**
 * The timers of one client transaction as a pure state machine: time is
 * passed in (nanoseconds on any monotonic clock), nothing here sends or
 * sleeps. The caller sends what {@link #onTimer} asks for and feeds in the
 * status codes of the responses that match the transaction (§17.1.3).
 *
 * <ul>
 *   <li>INVITE (RFC 3261 §17.1.1.2): over an unreliable transport Timer A
 *       fires first after T1 and doubles each time, without the T2 cap;
 *       a provisional response moves the transaction to Proceeding, which
 *       stops retransmission. A 2xx terminates it (the ACK for a 2xx belongs
 *       to the UA, §13.2.2.4); 300–699 move it to Completed, where it
 *       absorbs retransmissions of the final response (answering each with
 *       an ACK) until Timer D (32 s, zero over a reliable transport).</li>
 *   <li>non-INVITE (§17.1.2.2): Timer E starts at T1 and doubles up to T2
 *       in Trying; in Proceeding it fires every T2. Any final response ends
 *       the transaction at once: Timer K only exists to absorb response
 *       retransmissions, and a late copy for a finished transaction is
 *       ignored by the load generator anyway.</li>
 *   <li>Timer B (INVITE) and Timer F (non-INVITE), {@code 64 * T1} after
 *       the first send, time the transaction out. A load generator must
 *       bound every attempt, so Timer B keeps running in Proceeding too:
 *       an INVITE that rings without a final answer within 64*T1 counts as
 *       a timeout (RFC 3261 leaves that bound to the UA, which would send
 *       CANCEL).</li>
 *   <li>Over a reliable transport (TCP) Timers A and E are never set
 *       (§17.1.1.2, §17.1.2.2): the transport retransmits.</li>
 * </ul>
 *
 * <p>Not thread-safe: one owner thread, as every transaction of a load
 * lane lives on that lane's event loop.
 */
public final class ClientTransaction {

    /** Which of the two client state machines of §17.1 applies. */
    public enum Kind { INVITE, NON_INVITE }

    /** States of Figures 5 and 6 of RFC 3261; Trying is the non-INVITE name for Calling. */
    public enum State { CALLING, TRYING, PROCEEDING, COMPLETED, TERMINATED }

    /** What a timer asks the owner to do. */
    public enum Tick {
        /** Nothing is due yet. */
        NOTHING,
        /** Send the request again (Timer A or E fired). */
        RETRANSMIT,
        /** Give up: Timer B or F fired; the transaction is terminated. */
        TIMEOUT,
        /** Timer D fired in Completed: forget the transaction. */
        TERMINATED
    }

    /** What a response means for the transaction. */
    public enum Reaction {
        /** A 1xx: the request arrived. */
        PROVISIONAL,
        /** The first final response: the outcome of the transaction. */
        FINAL,
        /** A retransmitted non-2xx final response to an INVITE: send the ACK again (§17.1.1.2). */
        REPEAT_ACK,
        /** A response the transaction no longer cares about. */
        IGNORED
    }

    /** Timer D over an unreliable transport: "at least 32 seconds" (§17.1.1.2). */
    static final long TIMER_D_NANOS = 32_000_000_000L;

    private final Kind kind;
    private final boolean reliable;
    private final SipTimers timers;
    private final long startedAt;
    private State state;
    private long retransmitAt;
    private long interval;
    private long endAt;
    private int retransmissions;

    /**
     * A transaction whose request was first sent at {@code now}.
     *
     * @param reliable whether the transport is reliable (TCP), which turns retransmission off
     */
    public ClientTransaction(Kind kind, boolean reliable, SipTimers timers, long now) {
        this.kind = kind;
        this.reliable = reliable;
        this.timers = timers;
        this.startedAt = now;
        this.state = kind == Kind.INVITE ? State.CALLING : State.TRYING;
        this.interval = timers.t1Nanos();
        this.retransmitAt = reliable ? Long.MAX_VALUE : now + interval;
        this.endAt = now + timers.timeoutNanos();
    }

    public State state() {
        return state;
    }

    public Kind kind() {
        return kind;
    }

    /** When the request was first sent. */
    public long startedAt() {
        return startedAt;
    }

    /** How often the request has been sent again. */
    public int retransmissions() {
        return retransmissions;
    }

    /** The next instant {@link #onTimer} has something to do; {@code Long.MAX_VALUE} when terminated. */
    public long nextDeadline() {
        return state == State.TERMINATED ? Long.MAX_VALUE : Math.min(retransmitAt, endAt);
    }

    /** Runs whichever timer is due at {@code now}; at most one action per call. */
    public Tick onTimer(long now) {
        if (state == State.TERMINATED) {
            return Tick.NOTHING;
        }
        if (now >= endAt) {
            boolean completed = state == State.COMPLETED;
            state = State.TERMINATED;
            return completed ? Tick.TERMINATED : Tick.TIMEOUT;
        }
        if (now < retransmitAt) {
            return Tick.NOTHING;
        }
        retransmissions++;
        if (kind == Kind.INVITE) {
            interval = 2 * interval;
        } else if (state == State.PROCEEDING) {
            interval = timers.t2Nanos();
        } else {
            interval = Math.min(2 * interval, timers.t2Nanos());
        }
        retransmitAt = now + interval;
        return Tick.RETRANSMIT;
    }

    /** Feeds in the status code of a response matching this transaction. */
    public Reaction onResponse(int status, long now) {
        switch (state) {
            case TERMINATED:
                return Reaction.IGNORED;
            case COMPLETED:
                return status >= 300 ? Reaction.REPEAT_ACK : Reaction.IGNORED;
            default:
                break;
        }
        if (status < 200) {
            if (state == State.PROCEEDING) {
                return Reaction.IGNORED;
            }
            state = State.PROCEEDING;
            if (kind == Kind.INVITE) {
                retransmitAt = Long.MAX_VALUE;
            } else if (!reliable) {
                // §17.1.2.2: in Proceeding Timer E fires every T2; the next firing keeps its schedule.
                retransmitAt = Math.min(retransmitAt, now + timers.t2Nanos());
            }
            return Reaction.PROVISIONAL;
        }
        retransmitAt = Long.MAX_VALUE;
        if (kind == Kind.INVITE && status >= 300) {
            state = State.COMPLETED;
            endAt = reliable ? now : now + TIMER_D_NANOS;
            return Reaction.FINAL;
        }
        state = State.TERMINATED;
        return Reaction.FINAL;
    }
}
