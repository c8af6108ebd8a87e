package org.p2psip.loadtest.bench;

/** Receives a run's progress a few times a second, from the thread that called the run. */
@FunctionalInterface
public interface Progress {

    /**
     * @param phase   "setup" or the scenario's label
     * @param total   flows the phase will start at most
     * @param counters the phase's live counters
     * @param seconds since the phase started
     */
    void update(String phase, long total, LiveCounters counters, double seconds);

    /** Reports nothing. */
    Progress NONE = (phase, total, counters, seconds) -> {
    };
}
