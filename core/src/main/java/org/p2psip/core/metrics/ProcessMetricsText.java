package org.p2psip.core.metrics;

import static org.p2psip.core.metrics.ExpositionText.family;

import java.lang.management.GarbageCollectorMXBean;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryUsage;
import java.lang.management.OperatingSystemMXBean;
import java.math.BigDecimal;

/**
 * The process and JVM families every Java service exposes to Prometheus,
 * under the names its exporters use (the Prometheus Java client's
 * "process" and "hotspot" collectors), so existing dashboards and alerts
 * fit: {@code process_cpu_seconds_total}, {@code process_open_fds},
 * {@code process_max_fds}, {@code process_start_time_seconds},
 * {@code jvm_memory_used_bytes} and {@code jvm_memory_max_bytes} by
 * {@code area}, {@code jvm_gc_collection_seconds} (a summary: count and sum)
 * by {@code gc}, and {@code jvm_threads_current}. Read from the platform's
 * management beans at each scrape; a reading the platform does not offer
 * is left out rather than written as a made-up zero.
 */
public final class ProcessMetricsText {

    private ProcessMetricsText() {
    }

    /** This process's families in the text exposition format 0.0.4. */
    public static String render() {
        StringBuilder b = new StringBuilder(2_048);
        OperatingSystemMXBean os = ManagementFactory.getOperatingSystemMXBean();
        if (os instanceof com.sun.management.OperatingSystemMXBean hotspot && hotspot.getProcessCpuTime() >= 0) {
            family(b, "process_cpu_seconds_total", "counter",
                    "User and system CPU time this process has used.");
            b.append("process_cpu_seconds_total ").append(ExpositionText.seconds(hotspot.getProcessCpuTime()))
                    .append('\n');
        }
        if (os instanceof com.sun.management.UnixOperatingSystemMXBean unix) {
            family(b, "process_open_fds", "gauge", "Open file descriptors.");
            b.append("process_open_fds ").append(unix.getOpenFileDescriptorCount()).append('\n');
            family(b, "process_max_fds", "gauge", "The most file descriptors this process may open.");
            b.append("process_max_fds ").append(unix.getMaxFileDescriptorCount()).append('\n');
        }
        family(b, "process_start_time_seconds", "gauge",
                "When this process started, in seconds since the epoch.");
        b.append("process_start_time_seconds ")
                .append(BigDecimal.valueOf(ManagementFactory.getRuntimeMXBean().getStartTime(), 3).toPlainString())
                .append('\n');
        MemoryUsage heap = ManagementFactory.getMemoryMXBean().getHeapMemoryUsage();
        MemoryUsage nonHeap = ManagementFactory.getMemoryMXBean().getNonHeapMemoryUsage();
        family(b, "jvm_memory_used_bytes", "gauge", "Memory in use, by area.");
        b.append("jvm_memory_used_bytes{area=\"heap\"} ").append(heap.getUsed()).append('\n');
        b.append("jvm_memory_used_bytes{area=\"nonheap\"} ").append(nonHeap.getUsed()).append('\n');
        if (heap.getMax() >= 0) {
            family(b, "jvm_memory_max_bytes", "gauge", "The most memory an area may use.");
            b.append("jvm_memory_max_bytes{area=\"heap\"} ").append(heap.getMax()).append('\n');
        }
        family(b, "jvm_gc_collection_seconds", "summary",
                "Time spent in garbage collections, by collector.");
        for (GarbageCollectorMXBean gc : ManagementFactory.getGarbageCollectorMXBeans()) {
            if (gc.getCollectionCount() < 0) {
                continue;
            }
            String label = "{gc=\"" + ExpositionText.escape(gc.getName()) + "\"} ";
            b.append("jvm_gc_collection_seconds_count").append(label).append(gc.getCollectionCount()).append('\n');
            b.append("jvm_gc_collection_seconds_sum").append(label)
                    .append(BigDecimal.valueOf(Math.max(0, gc.getCollectionTime()), 3).toPlainString()).append('\n');
        }
        family(b, "jvm_threads_current", "gauge", "Live threads, daemon or not.");
        b.append("jvm_threads_current ").append(ManagementFactory.getThreadMXBean().getThreadCount()).append('\n');
        return b.toString();
    }
}
