package org.p2psip.dht.kademlia;

/**
 * When a hand-over pass ({@link HolderShift}) should run after the routing
 * table's membership changed. Pure: the table's change count and the time
 * (monotonic milliseconds) are arguments.
 *
 * <p>The rule. A pass starts once the table has been quiet for
 * {@code quietMillis}: a join reaches a table as several contacts learnt one
 * after another, and a contact written off under load may answer a probe a
 * moment later, so a burst costs one pass and a flap that undoes itself
 * none. A table that never settles still gets a pass {@code maxWaitMillis}
 * after the first change not yet handed over. One pass at a time: changes
 * made while one runs wait for it to end, and the next pass takes them all,
 * since a pass works from the table as it found it and its stores to a
 * contact gone since are for the next pass to redo elsewhere.
 */
final class MembershipDebounce {

    private final long quietMillis;
    private final long maxWaitMillis;
    /** The table's change count when last looked at, and the count the latest pass started from. */
    private long seen;
    private long handled;
    private long lastChangeAt;
    private long pendingSince;
    private boolean running;

    MembershipDebounce(long quietMillis, long maxWaitMillis) {
        if (quietMillis < 0 || maxWaitMillis < quietMillis) {
            throw new IllegalArgumentException("bad debounce: quiet " + quietMillis + " ms, at most "
                    + maxWaitMillis + " ms");
        }
        this.quietMillis = quietMillis;
        this.maxWaitMillis = maxWaitMillis;
    }

    /**
     * Looks at the table's change count at {@code nowMillis}; true when a
     * pass is due, which is then taken to have started and covers every
     * change counted so far.
     */
    boolean startIfDue(long changes, long nowMillis) {
        if (changes != seen) {
            if (seen == handled) {
                pendingSince = nowMillis;
            }
            seen = changes;
            lastChangeAt = nowMillis;
        }
        if (running || seen == handled) {
            return false;
        }
        if (nowMillis - lastChangeAt < quietMillis && nowMillis - pendingSince < maxWaitMillis) {
            return false;
        }
        running = true;
        handled = seen;
        return true;
    }

    /** The pass has ended, however. */
    void ended() {
        running = false;
    }

    boolean running() {
        return running;
    }
}
