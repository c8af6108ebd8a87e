package org.p2psip.servlet.node;

/**
 * Whether a node's warm-up may start more work in the current slice of
 * time, so that a node warming up on cores that already serve traffic takes
 * what is idle, not a share of what the serving processes need.
 *
 * <p>A warm-up runs as fast as its window allows, and the scheduler gives
 * its threads and the JIT compiler threads behind them a fair share of a
 * saturated host. Measured here (issue 33), a fourth chord node joining
 * three that carried 1,875 REGISTER/s on two cores took up to a core for
 * twenty seconds; the serving nodes' DHT latency rose past their admission
 * target and they shed a fifth of the load. So at each slice's end the gate
 * looks at the slice just ended: when the host was saturated ({@link
 * #SATURATED} of its cores busy) and the processes other than this one kept
 * at least {@link #OTHERS_BUSY} of it busy, the next slice starts nothing.
 * Several nodes warming up together on an idle host see each other as
 * "others" too and take turns, which slows them down but still leaves the
 * host as busy as it can be.
 *
 * <p>Pure: the caller passes {@link Sample}s taken from the host; not
 * thread-safe (one warm-up loop owns it).
 */
final class IdleCpuShare {

    /** The length of the slice decisions are made for. */
    static final long SLICE_NANOS = 100_000_000L;
    /** The share of the host's cores busy that counts as saturated. */
    static final double SATURATED = 0.90;
    /** The share of the host's cores the other processes must keep busy for this one to yield. */
    static final double OTHERS_BUSY = 0.50;

    /**
     * One look at the host.
     *
     * @param nanos      a monotonic time ({@link System#nanoTime})
     * @param hostBusy   CPU time the host's cores spent busy, in any unit, since any origin
     * @param hostTotal  CPU time the host's cores spent in all, in the same unit and from the same origin
     * @param ownCpuNanos CPU time this process has used, in nanoseconds
     */
    record Sample(long nanos, long hostBusy, long hostTotal, long ownCpuNanos) {
    }

    private final int cores;
    private Sample sliceStart;
    private boolean yielding;

    /** @param cores the host's processors, to turn this process's CPU time into a share of the host */
    IdleCpuShare(int cores) {
        if (cores < 1) {
            throw new IllegalArgumentException("a host has at least one core: " + cores);
        }
        this.cores = cores;
    }

    /** Whether work may start now; {@code now} is the host as it is. */
    boolean mayRun(Sample now) {
        if (sliceStart == null) {
            sliceStart = now;
            return true;
        }
        long wall = now.nanos() - sliceStart.nanos();
        if (wall < SLICE_NANOS) {
            return !yielding;
        }
        long total = now.hostTotal() - sliceStart.hostTotal();
        if (total > 0) {
            double busy = (double) (now.hostBusy() - sliceStart.hostBusy()) / total;
            double own = (double) (now.ownCpuNanos() - sliceStart.ownCpuNanos()) / ((double) wall * cores);
            yielding = busy >= SATURATED && busy - own >= OTHERS_BUSY;
        } else {
            yielding = false;
        }
        sliceStart = now;
        return !yielding;
    }
}
