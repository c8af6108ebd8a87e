package org.p2psip.servlet.node;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.function.BooleanSupplier;

/**
 * The {@link IdleCpuShare} of this host, read from Linux's {@code
 * /proc/stat} (the {@code cpu} line: user, nice, system, idle, iowait, irq,
 * softirq, steal, in clock ticks; idle and iowait are idle) and this JVM's
 * CPU time. Where either cannot be read the gate always opens: a warm-up
 * that cannot see the host runs as it would without one.
 */
final class HostCpuGate implements BooleanSupplier {

    private static final Path PROC_STAT = Path.of("/proc/stat");

    private final IdleCpuShare share = new IdleCpuShare(Runtime.getRuntime().availableProcessors());
    private boolean blind;
    private boolean open = true;
    private long nextLook = System.nanoTime();

    /** Whether work may start now; the host is looked at once a slice, not at every call. */
    @Override
    public boolean getAsBoolean() {
        long now = System.nanoTime();
        if (blind || now - nextLook < 0) {
            return blind || open;
        }
        nextLook = now + IdleCpuShare.SLICE_NANOS;
        Optional<IdleCpuShare.Sample> sample = sample();
        if (sample.isEmpty()) {
            blind = true;
            return true;
        }
        open = share.mayRun(sample.get());
        return open;
    }

    private static Optional<IdleCpuShare.Sample> sample() {
        if (!(ManagementFactory.getOperatingSystemMXBean() instanceof com.sun.management.OperatingSystemMXBean os)) {
            return Optional.empty();
        }
        long own = os.getProcessCpuTime();
        if (own < 0) {
            return Optional.empty();
        }
        try (var lines = Files.lines(PROC_STAT)) {
            return lines.findFirst().flatMap(CpuLine::parse)
                    .map(t -> new IdleCpuShare.Sample(System.nanoTime(), t.busy(), t.total(), own));
        } catch (IOException | RuntimeException e) {
            return Optional.empty();
        }
    }

    /** The host's busy and total ticks, from the aggregate {@code cpu} line of {@code /proc/stat}. */
    record CpuLine(long busy, long total) {

        static Optional<CpuLine> parse(String line) {
            List<String> fields = List.of(line.trim().split("\\s+"));
            if (fields.size() < 5 || !fields.get(0).equals("cpu")) {
                return Optional.empty();
            }
            long total = 0;
            long idle = 0;
            try {
                // guest and guest_nice (fields 9 and 10) are already counted in user and nice.
                for (int i = 1; i < Math.min(fields.size(), 9); i++) {
                    long ticks = Long.parseLong(fields.get(i));
                    total += ticks;
                    if (i == 4 || i == 5) {
                        idle += ticks;
                    }
                }
            } catch (NumberFormatException e) {
                return Optional.empty();
            }
            return Optional.of(new CpuLine(total - idle, total));
        }
    }
}
