package org.p2psip.servlet.node;

import java.lang.management.CompilationMXBean;
import java.lang.management.ManagementFactory;
import java.time.Duration;

/**
 * Waits after a warm-up until the JIT compiler has caught up with what the
 * warm-up made hot. A warm-up that ends while its methods are still queued
 * for the optimising compiler hands the first real load a JVM that is
 * still compiling: a flood of REGISTERs as a fresh balancer's first
 * traffic met C2 compiling the parser and the pipeline (up to 218
 * optimised compilations in its first seconds, on a compiler thread above
 * the event loops' priority) while the socket buffer overflowed. The
 * compiler counts as quiet when it spent at most {@link #BUSY_PER_WINDOW}
 * compiling in a {@link #WINDOW}.
 */
public final class CompilerQuiet {

    static final Duration WINDOW = Duration.ofMillis(500);
    static final Duration BUSY_PER_WINDOW = Duration.ofMillis(10);

    private CompilerQuiet() {
    }

    /** Whether compiling for {@code busyMillis} in one window is quiet. */
    static boolean quiet(long busyMillis) {
        return busyMillis <= BUSY_PER_WINDOW.toMillis();
    }

    /**
     * Returns once the compiler is quiet, or after {@code limit}.
     *
     * @return how long it waited; zero when this JVM does not report its compilation time
     */
    public static Duration await(Duration limit) throws InterruptedException {
        CompilationMXBean jit = ManagementFactory.getCompilationMXBean();
        if (jit == null || !jit.isCompilationTimeMonitoringSupported()) {
            return Duration.ZERO;
        }
        long start = System.nanoTime();
        long deadline = start + limit.toNanos();
        long before = jit.getTotalCompilationTime();
        while (System.nanoTime() < deadline) {
            Thread.sleep(WINDOW.toMillis());
            long now = jit.getTotalCompilationTime();
            if (quiet(now - before)) {
                break;
            }
            before = now;
        }
        return Duration.ofNanos(System.nanoTime() - start);
    }
}
