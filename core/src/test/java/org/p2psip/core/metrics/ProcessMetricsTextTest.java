package org.p2psip.core.metrics;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.junit.jupiter.api.Test;

class ProcessMetricsTextTest {

    private static double value(String text, String series) {
        Matcher m = Pattern.compile("^" + Pattern.quote(series) + " (\\S+)$", Pattern.MULTILINE).matcher(text);
        assertTrue(m.find(), () -> series + " missing from\n" + text);
        return Double.parseDouble(m.group(1));
    }

    @Test
    void cpuTimeGrowsWithWorkDone() {
        double before = value(ProcessMetricsText.render(), "process_cpu_seconds_total");
        long spin = 0;
        long until = System.nanoTime() + 200_000_000L;
        while (System.nanoTime() < until) {
            spin += Long.numberOfTrailingZeros(spin + 1);
        }
        double after = value(ProcessMetricsText.render(), "process_cpu_seconds_total");
        assertTrue(after > before, before + " then " + after + " (" + spin + ")");
    }

    @Test
    void heapAndThreadsAreReportedAsThePlatformSeesThem() {
        String text = ProcessMetricsText.render();
        assertTrue(value(text, "jvm_memory_used_bytes{area=\"heap\"}") > 0);
        assertTrue(value(text, "jvm_threads_current") >= 1);
        assertTrue(value(text, "process_open_fds") > 0);
        assertTrue(text.contains("# TYPE jvm_gc_collection_seconds summary\n"));
        for (String line : text.split("\n")) {
            assertTrue(line.startsWith("#") || line.matches("[a-z_]+(\\{[a-z]+=\"[^\"]*\"\\})? [0-9.E-]+"), line);
        }
    }
}
