package org.p2psip.loadtest.bench;

import java.util.concurrent.atomic.LongAdder;

/** Counters every lane adds to while it runs, read by the progress display from another thread. */
public final class LiveCounters {

    final LongAdder attempted = new LongAdder();
    final LongAdder succeeded = new LongAdder();
    final LongAdder failed = new LongAdder();

    public long attempted() {
        return attempted.sum();
    }

    public long succeeded() {
        return succeeded.sum();
    }

    public long failed() {
        return failed.sum();
    }
}
