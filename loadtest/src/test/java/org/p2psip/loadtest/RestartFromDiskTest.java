package org.p2psip.loadtest;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A power cut, as SIPp sees it: three node processes, two copies of every
 * binding, each node keeping what it holds in a data directory of its own
 * ({@code --data-dir}, {@code --flush-ms 500}). SIPp registers distinct AORs
 * for an hour, then a few hundred more for ten seconds; once the flush
 * interval has passed since the last answer, every node is SIGKILLed at
 * once and all are started again on the same ports and directories. Once
 * every node says it is ready again, one fetch per AOR (no retries) must
 * find every hour-long binding, and
 * none of the ten-second ones, which expired while the nodes were down.
 * CI registers 5,000 AORs; {@code -Drestart.aors=50000} runs the issue's
 * full count, {@code -Drestart.rate=N} registers and fetches at N a second
 * instead of 300, and {@code -Drestart.dht=chord,...} runs only the backends
 * named.
 */
@Timeout(900)
class RestartFromDiskTest {

    private static final String DOMAIN = "p2psip.test";
    private static final int AORS = Integer.getInteger("restart.aors", 5_000);
    private static final int RATE = Integer.getInteger("restart.rate", 300);
    private static final int SHORT_AORS = 300;
    private static final int SHORT_EXPIRES = 10;
    private static final long FLUSH_MS = 500;
    private static final int FETCH_RATE = RATE;
    private static final Pattern RECEIVED = Pattern.compile("received 'SIP/2\\.0 (\\d{3})");
    private static final Pattern ANSWERED = Pattern.compile("200 <-+\\s+(?:E-RTD1\\s+)?(\\d+)");

    @TempDir
    Path work;

    @ParameterizedTest
    @ValueSource(strings = {"chord", "hazelcast"})
    void everyBindingOlderThanTheFlushIntervalSurvivesKillingEveryNodeAtOnce(String dht) throws Exception {
        String only = System.getProperty("restart.dht", "");
        assumeTrue(only.isEmpty() || List.of(only.split(",")).contains(dht), "-Drestart.dht=" + only);
        try (OverlayNodes nodes = new OverlayNodes(dht, 2, Optional.of(DOMAIN)).keepingDataIn(work.resolve("data"),
                "--flush-ms", Long.toString(FLUSH_MS), "--min-expires", "5")) {
            OverlayNodes.Member seed = nodes.startAll(3);
            Path hour = OverlayNodes.domainAors(work, "kept", AORS, DOMAIN);
            Path seconds = shortLived();
            Sipp.Result registered = OverlayNodes.sippOnce(work, hour, "register-domain.xml", seed, "register",
                    AORS, RATE);
            assertEquals(AORS, registered.successful(), () -> registered + "\n" + failures(work.resolve("register.log"))
                    + nodes.nodeOutput());
            Sipp.Result brief = OverlayNodes.sippOnce(work, seconds, "register-domain-expires.xml", seed, "brief",
                    SHORT_AORS, 300);
            assertEquals(SHORT_AORS, brief.successful(), () -> brief + nodes.nodeOutput());
            long briefDone = System.nanoTime();
            // The promise is about bindings acknowledged more than --flush-ms before the crash.
            TimeUnit.MILLISECONDS.sleep(2 * FLUSH_MS);

            List<OverlayNodes.Member> before = nodes.members();
            nodes.kill(before);
            long down = System.nanoTime();
            // The ten-second bindings lapse while every node is down, however fast they come back.
            long lapse = briefDone + TimeUnit.SECONDS.toNanos(SHORT_EXPIRES + 1) - System.nanoTime();
            TimeUnit.NANOSECONDS.sleep(Math.max(0, lapse));
            OverlayNodes.Member first = nodes.restart(before.get(0), null);
            first.process().awaitOutput("listening", Duration.ofSeconds(120));
            List<OverlayNodes.Member> again = new ArrayList<>(List.of(first));
            for (OverlayNodes.Member m : before.subList(1, before.size())) {
                again.add(nodes.restart(m, first));
            }
            for (OverlayNodes.Member m : again) {
                m.process().awaitOutput("listening", Duration.ofSeconds(180));
            }
            double restartSeconds = (System.nanoTime() - down) / 1e9;
            // Each node says 'listening' once it has joined and warmed up: the fetch starts then, as a
            // supervisor would send traffic, at the pace of OverlayProcessKillTest's.

            Sipp.Result found = OverlayNodes.sippOnce(work, hour, "fetch-domain.xml", again.get(1), "fetch", AORS,
                    FETCH_RATE);
            Sipp.Result expired = OverlayNodes.sippOnce(work, seconds, "fetch-domain.xml", again.get(2), "expired",
                    SHORT_AORS, 300);
            System.out.printf("%s restart from disk: %d/%d registered, all 3 nodes SIGKILLed and back in %.1f s, "
                            + "%d/%d found; %d of %d ten-second bindings found, %d fetches of them answered 200%n",
                    dht, registered.successful(), AORS, restartSeconds, found.successful(), AORS,
                    expired.successful(), SHORT_AORS, answered(expired.screen()));
            String fetchReport = found + "\n" + failures(work.resolve("fetch.log")) + "\n"
                    + Sipp.errorExcerpt(work.resolve("fetch.log"), 20);
            assertEquals(AORS, found.successful(), () -> "lost after the restart: " + fetchReport
                    + nodes.nodeOutput());
            assertEquals(0, expired.successful(), () -> "expired bindings came back: " + expired);
            assertEquals(SHORT_AORS, answered(expired.screen()),
                    () -> "every fetch of an expired AOR is answered 200 with no binding: " + expired);
        }
    }

    /** AORs registered for {@value #SHORT_EXPIRES} s, rows as register-domain-expires.xml reads them. */
    private Path shortLived() throws Exception {
        List<String> rows = new ArrayList<>(List.of("SEQUENTIAL"));
        for (int i = 0; i < SHORT_AORS; i++) {
            rows.add("brief" + i + ";127.0.0.1:5999;" + DOMAIN + ";" + SHORT_EXPIRES);
        }
        Path csv = work.resolve("brief.csv");
        Files.write(csv, rows, StandardCharsets.US_ASCII);
        return csv;
    }

    /** What the calls SIPp failed received instead of their 200, by status: "{500=12, 503=3}". */
    private static String failures(Path errorLog) {
        List<String> lines;
        try {
            lines = Files.exists(errorLog) ? Files.readAllLines(errorLog, StandardCharsets.ISO_8859_1) : List.of();
        } catch (IOException e) {
            return "SIPp's error log unreadable: " + e;
        }
        TreeMap<String, Integer> byStatus = new TreeMap<>();
        for (String line : lines) {
            Matcher m = RECEIVED.matcher(line);
            if (line.contains("Aborting call") && m.find()) {
                byStatus.merge(m.group(1), 1, Integer::sum);
            } else if (line.contains("Aborting call") && line.contains("regexp")) {
                byStatus.merge("200 without the binding", 1, Integer::sum);
            }
        }
        return "failed calls by what they received: " + byStatus;
    }

    /** The 200 answers SIPp received, from its last statistics screen. */
    private static long answered(String screen) {
        Matcher m = ANSWERED.matcher(screen);
        long last = -1;
        while (m.find()) {
            last = Long.parseLong(m.group(1));
        }
        return last;
    }
}
