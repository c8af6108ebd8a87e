package org.p2psip.loadtest;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.Map;
import java.util.UUID;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.p2psip.core.testing.FreePorts;

/**
 * {@code bench connections --register-rate} against a real balancer and
 * node: every connection registers its own AOR as it opens and refreshes
 * it over the same connection, each answered 2xx, and the bindings are
 * there to be found afterwards, with the flow the balancer marked (Path).
 * The 19,000-connection figure in docs/multi-host.md comes from this command at
 * full size; here it runs small.
 */
@Timeout(180)
class ConnectionRefreshesTest {

    private static final int CONNECTIONS = 400;

    @Test
    void everyConnectionRegistersAndRefreshesThroughTheBalancer() throws Exception {
        int base = FreePorts.consecutive(3);
        int admin = FreePorts.consecutive(1);
        try (NodeProcess cluster = NodeProcess.start(Map.of("P2PSIP_CLUSTER_SECRET", "refresh-" + UUID.randomUUID()),
                "cluster", "--dht", "hazelcast", "--nodes", "1", "--sip", "127.0.0.1:" + base,
                "--overlay-base", Integer.toString(base + 2), "--admin-base", Integer.toString(admin),
                "--auth", "none")) {
            cluster.awaitOutput("p2psip cluster ready", Duration.ofSeconds(120));
            String domain = "127.0.0.1:" + base;

            try (NodeProcess bench = NodeProcess.start("bench", "connections", "--target", domain,
                    "--count", Integer.toString(CONNECTIONS), "--rate", "400", "--sources", "127.0.0.10-127.0.0.13",
                    "--register-rate", "400", "--register-seconds", "3", "--domain", domain)) {
                assertEquals(0, bench.awaitExit(Duration.ofSeconds(60)), String.join("\n", bench.output()));
                String out = String.join("\n", bench.output());
                Matcher initial = Pattern.compile("initial: +([\\d,]+) REGISTERs .*: ([\\d,]+) answered 2xx, ([\\d,]+) failed")
                        .matcher(out);
                assertTrue(initial.find(), out);
                assertEquals(CONNECTIONS, number(initial.group(1)), out);
                assertEquals(CONNECTIONS, number(initial.group(2)), out);
                Matcher refreshes = Pattern.compile("refreshes: ([\\d,]+) REGISTERs .*: ([\\d,]+) answered 2xx, ([\\d,]+) failed")
                        .matcher(out);
                assertTrue(refreshes.find(), out);
                assertTrue(number(refreshes.group(1)) >= 1_100, "about 400/s for 3 s: " + out);
                assertEquals(number(refreshes.group(1)), number(refreshes.group(2)), out);
                assertEquals(0, number(refreshes.group(3)), out);
            }

            try (SipUdpClient ua = new SipUdpClient()) {
                String answer = ua.exchangeOverTcp(base, ua.register(base, "conn123", null, "fetch-" + UUID.randomUUID(),
                        1, null));
                assertTrue(answer.startsWith("SIP/2.0 200"), answer);
                assertTrue(Pattern.compile("(?im)^Contact: <sip:conn123@127\\.0\\.0\\.1[0-3]:\\d+;transport=tcp>")
                        .matcher(answer).find(), answer);
            }
        }
    }

    private static long number(String digits) {
        return Long.parseLong(digits.replace(",", ""));
    }
}
