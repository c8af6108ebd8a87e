package org.p2psip.loadtest.scale;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import picocli.CommandLine;

/**
 * {@code bench scale} end to end with tiny settings: a real one-node
 * cluster process (local backend) behind the balancer on 127.0.0.1, a
 * short search, and every result file written and well-formed. A second
 * backend on two nodes is asked for too, to see the local backend's
 * multi-node cell skipped. Speed is not asserted: it is what the
 * benchmark measures.
 */
@Timeout(90)
class ScaleSmokeTest {

    private static final byte[] PNG_MAGIC = {(byte) 0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n'};

    @TempDir
    Path out;

    @Test
    void writesTableCsvJsonAndChartsAndStopsTheCluster() throws Exception {
        Set<Long> before = descendants();
        StringWriter stdout = new StringWriter();
        StringWriter stderr = new StringWriter();
        CommandLine cl = ScaleCommand.commandLine();
        cl.setOut(new PrintWriter(stdout));
        cl.setErr(new PrintWriter(stderr));
        int code = cl.execute("--dht", "local", "--nodes", "1,2", "--scenario", "register", "--warmup", "0.5",
                "--start-rate", "100", "--step-duration", "0.5", "--max-steps", "2", "--search-budget", "8",
                "--users", "2000", "--out", out.toString());
        String log = stdout + "\n" + stderr;
        assertEquals(0, code, log);

        List<List<String>> csv = Csv.parse(Files.readString(out.resolve("results.csv"), StandardCharsets.UTF_8));
        assertEquals(ResultsCsv.COLUMNS, csv.get(0));
        assertEquals(5, csv.size(), "header, local x1, local x2 (skipped), with auth and without: " + csv);
        assertEquals(List.of("local", "required", "owner", "1", "register", "ok"), csv.get(1).subList(0, 6), log);
        assertEquals(List.of("local", "required", "owner", "2", "register", "skipped"), csv.get(2).subList(0, 6));
        assertEquals(List.of("local", "none", "owner", "1", "register", "ok"), csv.get(3).subList(0, 6), log);
        assertTrue(log.contains("provisioned 2,000 users"), "the generator's users are provisioned: " + log);

        @SuppressWarnings("unchecked")
        Map<String, Object> json = (Map<String, Object>) MiniJson.parse(
                Files.readString(out.resolve("results.json"), StandardCharsets.UTF_8));
        @SuppressWarnings("unchecked")
        List<Map<String, Object>> cells = (List<Map<String, Object>>) json.get("cells");
        assertEquals(4, cells.size());
        Map<String, Object> measured = cells.get(0);
        assertEquals("ok", measured.get("status"));
        double rate = (Double) measured.get("max_rate");
        assertEquals(Double.parseDouble(csv.get(1).get(6)), rate, 0.5, "CSV and JSON tell the same rate");
        if (rate > 0) {
            @SuppressWarnings("unchecked")
            Map<String, Object> dhtOps = (Map<String, Object>) measured.get("dht_operations");
            assertNotNull(dhtOps, "the nodes' DHT operations in the max-rate step, from their --metrics: " + log);
            assertTrue((Double) dhtOps.get("count") >= rate * 0.5, "a REGISTER reads and writes: " + dhtOps);
            assertEquals(1.0, (Double) dhtOps.get("local_share"), "one node owns every key: " + dhtOps);
            @SuppressWarnings("unchecked")
            Map<String, Object> cpu = (Map<String, Object>) measured.get("cpu_ms_per_1000");
            assertNotNull(cpu, "the processes' CPU in the max-rate step, from /proc: " + log);
            assertTrue((Double) cpu.get("nodes") > 0, "the node did work: " + cpu);
            assertTrue((Double) cpu.get("generator") > 0, "so did the generator: " + cpu);
            assertTrue((Double) measured.get("projected_rate") > 0, "and the projection follows: " + measured);
        }

        String md = Files.readString(out.resolve("results.md"), StandardCharsets.UTF_8);
        assertTrue(md.contains("| backend | 1 node | 2 nodes |"), md);
        assertTrue(md.contains("| local (auth none) | "), md);
        assertTrue(md.contains("| local | " + ResultsTable.grouped(rate)) || rate == 0, md);
        assertTrue(stdout.toString().contains("### register"), "the table is printed too: " + stdout);

        assertPng(out.resolve("rate-register.png"));
        if (rate > 0) {
            assertPng(out.resolve("latency-register.png"));
            assertPng(out.resolve("cost-register.png"));
        }
        assertTrue(Files.size(out.resolve("cluster-local-required-owner-1.log")) > 0, "the cluster's output is kept");

        // Tear-down is part of the job: no process the run started may outlive it.
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        Set<Long> left = leftOver(before);
        while (!left.isEmpty() && System.nanoTime() < deadline) {
            ProcessHandle.of(left.iterator().next()).ifPresent(h -> h.onExit().orTimeout(1, TimeUnit.SECONDS)
                    .exceptionally(t -> h).join());
            left = leftOver(before);
        }
        assertEquals(Set.of(), left, "processes left running");
    }

    @Test
    void badFlagsAreAOneLineErrorWithExitCode2() {
        StringWriter err = new StringWriter();
        CommandLine cl = ScaleCommand.commandLine();
        cl.setErr(new PrintWriter(err));
        assertEquals(2, cl.execute("--dht", "nosuch", "--out", out.toString()));
        assertTrue(err.toString().contains("unknown DHT backend 'nosuch'"), err.toString());
        assertEquals(2, cl.execute("--scenario", "dance", "--out", out.toString()));
        assertTrue(err.toString().contains("unknown scenario 'dance'"), err.toString());
        assertEquals(2, cl.execute("--policy", "nearest", "--out", out.toString()));
        assertTrue(err.toString().contains("unknown policy 'nearest'"), err.toString());
    }

    @Test
    void noFlagsMeanTheDefaults() {
        CommandLine cl = ScaleCommand.commandLine();
        cl.parseArgs();
        ScaleSettings s = ((ScaleCommand) cl.getCommand()).settings();
        assertEquals(List.of(1, 2, 4), s.nodeCounts());
        assertEquals(Path.of("scale-results"), s.out());
        assertEquals(List.of("register", "call"), s.scenarios().stream().map(x -> x.label()).toList());
        assertTrue(s.dhts().containsAll(List.of("local", "hazelcast", "chord", "kademlia")), s.dhts().toString());
        assertEquals(Duration.ofSeconds(2), s.stepDuration());
        assertEquals(List.of("owner"), s.policies());
    }

    private static void assertPng(Path file) throws Exception {
        byte[] bytes = Files.readAllBytes(file);
        assertTrue(bytes.length > 1000, file + " is " + bytes.length + " bytes");
        assertArrayEquals(PNG_MAGIC, Arrays.copyOf(bytes, 8), file.toString());
    }

    private static Set<Long> descendants() {
        return ProcessHandle.current().descendants().filter(ProcessHandle::isAlive).map(ProcessHandle::pid)
                .collect(Collectors.toSet());
    }

    private static Set<Long> leftOver(Set<Long> before) {
        Set<Long> now = descendants();
        now.removeAll(before);
        return now;
    }
}
