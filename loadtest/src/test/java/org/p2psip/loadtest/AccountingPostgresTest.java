package org.p2psip.loadtest;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.ToLongFunction;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.p2psip.core.testing.Eventually;
import org.p2psip.core.testing.FreePorts;
import org.p2psip.core.testing.PostgresServer;

/**
 * Call accounting to a real PostgreSQL server (Debian's, started by the
 * test in a directory of its own) from three chord node processes behind
 * {@code p2psip lb}, which spreads requests round-robin, so a call's INVITE
 * and BYE usually meet different nodes. A SIPp uas keeping Record-Route is
 * the callee; SIPp's uac places the calls through the balancer, each held
 * {@value #CALL_MILLIS} ms and hung up along its route set: first a few
 * warm-up calls for the JVMs' compilers, then {@link #CALLS} counted ones at
 * {@link #RATE} a second (after a short ramp). A few seconds into the
 * counted run PostgreSQL is stopped for {@value #OUTAGE_SECONDS} s and
 * started again. Then:
 * <ul>
 *   <li>every call SIPp completed has exactly one row (its Call-ID is the
 *       key), answered, ended, status 200, with a duration of the call's
 *       length (answer forwarded to BYE arrived: a little more; SIPp's
 *       millisecond timer may end a pause a few milliseconds early);</li>
 *   <li>no node dropped a record, every node held records in memory during
 *       the outage, said so once, and once that it writes again;</li>
 *   <li>rows whose INVITE and BYE went through different nodes were merged.</li>
 * </ul>
 * Calls SIPp counts as failed are named in its error file; they are
 * counted, never placed again, and must stay few. The counted calls are
 * 3,000 at 50 a second, about 60 s: at 200 a second (the 10,000)
 * the INVITE's answer took 290 ms at 150 a second and over 1 s at 200 with
 * one core busy elsewhere, and a SIPp callee ends a call on a late
 * retransmission of its INVITE, so a busy machine failed the test for want
 * of CPU; on 2 Dec 2026 the CI's machine did the same at 100 a second (a
 * thousand BYEs timed out, 1,432 INVITEs resent for want of a 100 within
 * 500 ms). {@code -Dp2psip.test.acctCalls} and {@code -Dp2psip.test.acctRate}
 * change them.
 */
@Timeout(300)
class AccountingPostgresTest {

    private static final String DOMAIN = "p2psip.test";
    private static final int CALLS = Integer.getInteger("p2psip.test.acctCalls", 3_000);
    private static final int RATE = Integer.getInteger("p2psip.test.acctRate", 50);
    private static final int WARM_UP_CALLS = 300;
    private static final int CALL_MILLIS = 1_000;
    private static final int OUTAGE_SECONDS = 20;
    /** SIPp's pause may end a few milliseconds early: its clock is read once per pass of its loop. */
    private static final long EARLY_MILLIS = 50;
    /** Answer to BYE is the call's length plus the ACK's and the BYE's trips: at most this more on a busy machine. */
    private static final long LATE_MILLIS = 2_000;
    private static final Pattern COUNTER = Pattern.compile("(?m)^(p2psip_acct_[a-z_]+) (\\d+)$");
    private static final Pattern ABORTED = Pattern.compile("Aborting call[^']*'acct-(\\d+)-");

    @TempDir
    Path work;

    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();

    @Test
    void everyCallHasOneRowWithItsDurationAndAPostgresOutageLosesNone() throws Exception {
        try (PostgresServer postgres = PostgresServer.start(work.resolve("postgres"))) {
            postgres.createDatabase("acct");
            int lbPort = FreePorts.udpAndTcp();
            List<String> accounting = List.of("--acct-db", postgres.url("acct"), "--flush-count", "100",
                    "--flush-ms", "200");
            try (OverlayNodes nodes = new OverlayNodes("chord", 2, Optional.of(DOMAIN), Optional.of(lbPort), accounting)) {
                nodes.startAll(3);
                try (NodeProcess lb = nodes.startBalancer(FreePorts.udpAndTcp(), "--policy", "round-robin")) {
                    run(postgres, nodes, lbPort);
                }
            }
        }
    }

    private void run(PostgresServer postgres, OverlayNodes nodes, int lbPort) throws Exception {
        String lb = "127.0.0.1:" + lbPort;
        int uasPort = FreePorts.udpAndTcp();
        Process uas = Sipp.startBackground(work, "-sf", Path.of("sipp", "uas-record-route.xml").toAbsolutePath()
                .toString(), "-i", "127.0.0.1", "-p", Integer.toString(uasPort));
        try {
            Sipp.Result registered = Sipp.registerOne(work, "callee", "127.0.0.1:" + uasPort, lb, lb);
            assertEquals(0, registered.exitCode(), registered.toString());

            Sipp.Result warmUp = calls(lb, "warm", WARM_UP_CALLS, 50, 50, 200);
            assertTrue(warmUp.successful() > 0, warmUp::toString);
            Eventually.until(() -> allNodes(nodes, Counters::pending) == 0, Duration.ofSeconds(30),
                    () -> "the warm-up's records written (" + counters(nodes) + ")");
            List<Long> writtenBefore = counters(nodes).stream().map(Counters::written).toList();

            CompletableFuture<Sipp.Result> counted = CompletableFuture.supplyAsync(() -> {
                try {
                    return calls(lb, "acct", CALLS, Math.max(1, RATE / 4), RATE, CALL_MILLIS);
                } catch (Exception e) {
                    throw new IllegalStateException(e);
                }
            });
            // The outage starts once every node writes the counted calls, so it falls inside the run.
            Eventually.until(() -> {
                List<Counters> now = counters(nodes);
                for (int i = 0; i < now.size(); i++) {
                    if (now.get(i).written() < writtenBefore.get(i) + 100) {
                        return false;
                    }
                }
                return true;
            }, Duration.ofSeconds(60), () -> "every node writing the counted calls (" + counters(nodes) + ")");
            postgres.stop();
            long stopped = System.nanoTime();
            long outage = TimeUnit.SECONDS.toNanos(OUTAGE_SECONDS);
            Eventually.until(() -> System.nanoTime() - stopped >= outage
                            && everyNode(nodes, Counters::flushFailures) > 0,
                    Duration.ofSeconds(OUTAGE_SECONDS + 30),
                    () -> OUTAGE_SECONDS + " s of outage that every node noticed (" + counters(nodes) + ")");
            long heldAtTheEnd = everyNode(nodes, Counters::pending);
            postgres.start();

            Sipp.Result result = counted.get(CALLS / RATE + 200, TimeUnit.SECONDS);
            String errors = Files.exists(work.resolve("acct-errors.log"))
                    ? Files.readString(work.resolve("acct-errors.log"), StandardCharsets.ISO_8859_1) : "";
            Set<Integer> failed = new TreeSet<>();
            Matcher aborted = ABORTED.matcher(errors);
            while (aborted.find()) {
                failed.add(Integer.parseInt(aborted.group(1)));
            }
            String sipp = result + "\n" + Sipp.errorExcerpt(work.resolve("acct-errors.log"), 20);
            assertEquals(CALLS, result.successful() + result.failed(), sipp);
            assertEquals(result.failed(), failed.size(), () -> "the failed calls SIPp names: " + failed + "\n" + sipp);
            assertTrue(result.failed() <= CALLS / 100, () -> "more than 1 % of the calls failed\n" + sipp);
            assertTrue(uas.isAlive(), "the SIPp uas died during the run");

            Eventually.until(() -> completeRows(postgres) >= result.successful()
                            && allNodes(nodes, Counters::pending) == 0,
                    Duration.ofSeconds(60), () -> "every call's row written (" + counters(nodes) + ")");

            Map<Integer, Row> rows = rows(postgres);
            List<Long> durations = new ArrayList<>();
            List<String> wrong = new ArrayList<>();
            long acrossNodes = 0;
            for (int call = 1; call <= CALLS; call++) {
                Row row = rows.get(call);
                if (failed.contains(call)) {
                    continue;
                }
                if (row == null || row.status != 200 || row.answered == null || row.ended == null
                        || row.durationMillis < CALL_MILLIS - EARLY_MILLIS
                        || row.durationMillis > CALL_MILLIS + LATE_MILLIS) {
                    wrong.add("call " + call + ": " + row);
                    continue;
                }
                durations.add(row.durationMillis);
                if (!row.inviteNode.equals(row.byeNode)) {
                    acrossNodes++;
                }
            }
            Collections.sort(durations);
            String seen = "SIPp: " + result.successful() + " calls completed, " + result.failed() + " failed; "
                    + "PostgreSQL: " + rows.size() + " rows, " + acrossNodes + " of the completed calls set up and "
                    + "hung up through different nodes; durations " + summary(durations) + "; " + heldAtTheEnd
                    + " or more records held by every node at the end of the outage; nodes " + counters(nodes);
            System.out.println("accounting to postgresql: " + seen);
            assertEquals(List.of(), wrong.subList(0, Math.min(20, wrong.size())), seen);
            assertTrue(rows.size() <= CALLS, seen);
            assertTrue(acrossNodes > 0, seen);
            assertTrue(heldAtTheEnd > 0, seen);
            assertEquals(0, allNodes(nodes, Counters::dropped), seen);
            for (OverlayNodes.Member m : nodes.members()) {
                List<String> output = m.process().output();
                assertEquals(1, output.stream().filter(l -> l.contains("accounting: cannot write to")).count(),
                        () -> "one warning for the outage from node " + m.sip() + ":\n" + String.join("\n", output));
                assertEquals(1, output.stream().filter(l -> l.contains("accounting: writing to")).count(),
                        () -> "one line for the recovery from node " + m.sip() + ":\n" + String.join("\n", output));
            }
        } finally {
            uas.destroy();
            uas.waitFor(5, TimeUnit.SECONDS);
        }
    }

    /**
     * {@code count} calls through the balancer at {@code lb}, Call-IDs
     * {@code NAME-N-PID@127.0.0.1}, from {@code startRate} a second up to
     * {@code rate} in steps of {@code startRate} each second, each held
     * {@code holdMillis}; errors in {@code NAME-errors.log}.
     */
    private Sipp.Result calls(String lb, String name, int count, int startRate, int rate, int holdMillis)
            throws Exception {
        List<String> args = new ArrayList<>(List.of("-sf", Path.of("sipp", "call-hold.xml").toAbsolutePath().toString(),
                "-s", "callee", "-cid_str", name + "-%u-%p@%s", "-m", Integer.toString(count),
                "-l", Integer.toString(10 * rate), "-d", Integer.toString(holdMillis), "-i", "127.0.0.1",
                "-p", Integer.toString(FreePorts.udpAndTcp()),
                "-trace_err", "-error_file", work.resolve(name + "-errors.log").toString()));
        if (rate > startRate) {
            args.addAll(List.of("-r", Integer.toString(startRate), "-rate_increase", Integer.toString(startRate),
                    "-rate_interval", "1s", "-rate_max", Integer.toString(rate), "-no_rate_quit"));
        } else {
            args.addAll(List.of("-r", Integer.toString(rate)));
        }
        args.add(lb);
        return Sipp.run(work, Duration.ofSeconds(count / rate + 90), args.toArray(String[]::new));
    }

    private static String summary(List<Long> sorted) {
        if (sorted.isEmpty()) {
            return "none";
        }
        return sorted.get(0) + " .. " + sorted.get(sorted.size() - 1) + " ms, median " + sorted.get(sorted.size() / 2)
                + ", 99th percentile " + sorted.get((int) Math.min(sorted.size() - 1, sorted.size() * 99L / 100));
    }

    /** A node's accounting counters, as its metrics say. */
    private record Counters(long written, long dropped, long pending, long flushFailures) {
    }

    private Counters counters(OverlayNodes.Member m) {
        try {
            HttpResponse<String> r = http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + m.metrics()
                    + "/metrics")).timeout(Duration.ofSeconds(5)).build(), HttpResponse.BodyHandlers.ofString());
            long written = -1;
            long dropped = -1;
            long pending = -1;
            long failures = -1;
            Matcher c = COUNTER.matcher(r.body());
            while (c.find()) {
                long v = Long.parseLong(c.group(2));
                switch (c.group(1)) {
                    case "p2psip_acct_records_written_total" -> written = v;
                    case "p2psip_acct_records_dropped_total" -> dropped = v;
                    case "p2psip_acct_records_pending" -> pending = v;
                    case "p2psip_acct_flush_failures_total" -> failures = v;
                    default -> { }
                }
            }
            return new Counters(written, dropped, pending, failures);
        } catch (IOException e) {
            throw new IllegalStateException("node " + m.sip() + "'s metrics: " + e, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    private List<Counters> counters(OverlayNodes nodes) {
        return nodes.members().stream().map(this::counters).toList();
    }

    /** The smallest value of {@code value} over the nodes. */
    private long everyNode(OverlayNodes nodes, ToLongFunction<Counters> value) {
        return counters(nodes).stream().mapToLong(value).min().orElse(0);
    }

    private long allNodes(OverlayNodes nodes, ToLongFunction<Counters> value) {
        return counters(nodes).stream().mapToLong(value).sum();
    }

    private static long completeRows(PostgresServer postgres) {
        try (Connection c = DriverManager.getConnection(postgres.url("acct")); Statement s = c.createStatement();
             ResultSet r = s.executeQuery("SELECT COUNT(*) FROM acc_calls WHERE call_id LIKE 'acct-%' "
                     + "AND answered_at IS NOT NULL AND ended_at IS NOT NULL AND status = 200")) {
            r.next();
            return r.getLong(1);
        } catch (SQLException e) {
            // Not up again yet.
            return -1;
        }
    }

    /** One counted call's row. */
    private record Row(int status, Instant answered, Instant ended, long durationMillis, String inviteNode,
                       String byeNode) {
    }

    /** The counted calls' rows by call number. */
    private static Map<Integer, Row> rows(PostgresServer postgres) throws SQLException {
        Map<Integer, Row> rows = new HashMap<>();
        try (Connection c = DriverManager.getConnection(postgres.url("acct")); Statement s = c.createStatement();
             ResultSet r = s.executeQuery("SELECT call_id, status, answered_at, ended_at, duration_ms, invite_node, "
                     + "bye_node FROM acc_calls WHERE call_id LIKE 'acct-%'")) {
            while (r.next()) {
                String id = r.getString(1);
                int call = Integer.parseInt(id.substring("acct-".length(), id.indexOf('-', "acct-".length())));
                int status = r.getInt(2);
                OffsetDateTime answered = r.getObject(3, OffsetDateTime.class);
                OffsetDateTime ended = r.getObject(4, OffsetDateTime.class);
                long duration = r.getLong(5);
                if (r.wasNull()) {
                    duration = -1;
                }
                rows.put(call, new Row(status, answered == null ? null : answered.toInstant(),
                        ended == null ? null : ended.toInstant(), duration, r.getString(6), r.getString(7)));
            }
        }
        return rows;
    }
}
