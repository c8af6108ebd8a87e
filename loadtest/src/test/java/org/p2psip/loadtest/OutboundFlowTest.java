package org.p2psip.loadtest;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.p2psip.core.testing.Eventually;
import org.p2psip.core.testing.FreePorts;

/**
 * A phone that accepts no connections still receives its calls (RFC 5626
 * outbound, RFC 3327 Path): SIPp registers over one TCP connection to the
 * balancer with a Contact nothing listens on, and 1,000 calls through a
 * 3-node cluster reach it over that connection, each answered by its
 * out-of-call scenario (which absorbs a copy of an INVITE it already
 * answered, as a phone's transaction layer does) and hung up along the
 * route set. Once that connection is gone, a call to it is answered 480
 * at once instead of waiting out a transaction timeout.
 */
@Timeout(300)
class OutboundFlowTest {

    private static final int CALLS = 1000;

    @TempDir
    Path work;

    @Test
    void aPhoneAcceptingNoConnectionsGetsItsCallsOverItsRegisteredFlow() throws Exception {
        try (AuthenticatedCluster cluster = AuthenticatedCluster.startWithDefaults(work, "hazelcast", 3)) {
            cluster.importUsers("flow", 1);
            String lb = "127.0.0.1:" + cluster.lbPort();
            int nobodyListens = FreePorts.udpAndTcp();
            Path csv = work.resolve("flow-phone.csv");
            Files.write(csv, List.of("SEQUENTIAL", "flowu0;127.0.0.1:" + nobodyListens + ";"
                    + AuthenticatedCluster.password("flowu0")), StandardCharsets.ISO_8859_1);
            Path messages = work.resolve("phone-messages.log");
            Process phone = Sipp.startBackground(work, "-sf", scenario("register-flow.xml"),
                    "-oocsf", scenario("uas-flow-phone.xml"), "-inf", csv.toString(),
                    "-au", "[field0]", "-ap", "[field2]", "-m", "1", "-d", "240000", "-t", "t1",
                    "-i", "127.0.0.1", "-p", Integer.toString(FreePorts.udpAndTcp()),
                    "-trace_msg", "-message_file", messages.toString(),
                    "-trace_err", "-error_file", work.resolve("phone-errors.log").toString(), lb);
            try {
                awaitRegistered(messages, phone, Duration.ofSeconds(30));

                Sipp.Result calls = Sipp.run(work, Duration.ofSeconds(180),
                        "-sf", scenario("call-hold.xml"), "-s", "flowu0", "-m", Integer.toString(CALLS),
                        "-r", "100", "-l", "200", "-d", "0", "-i", "127.0.0.1",
                        "-p", Integer.toString(FreePorts.udpAndTcp()),
                        "-trace_err", "-error_file", work.resolve("caller-errors.log").toString(), lb);
                String why = calls + "\n" + Sipp.errorExcerpt(work.resolve("caller-errors.log"), 30)
                        + "\nphone: " + Sipp.errorExcerpt(work.resolve("phone-errors.log"), 30);
                assertEquals(CALLS, calls.successful(), why);
                assertEquals(0, calls.failed(), why);
                assertTrue(phone.isAlive(), "the phone's SIPp ended during the calls: " + why);
                Set<String> invites = invitedCalls(messages);
                assertEquals(CALLS, invites.size(), "every call's INVITE reached the phone, on its one connection");
            } finally {
                phone.destroy();
                assertTrue(phone.waitFor(10, TimeUnit.SECONDS), "the phone's SIPp did not exit");
            }

            Sipp.Result gone = Sipp.run(work, Duration.ofSeconds(30), "-sf", scenario("call-unavailable.xml"),
                    "-s", "flowu0", "-m", "1", "-i", "127.0.0.1", "-p", Integer.toString(FreePorts.udpAndTcp()),
                    "-trace_err", "-error_file", work.resolve("gone-errors.log").toString(), lb);
            assertEquals(1, gone.successful(), gone + "\n" + Sipp.errorExcerpt(work.resolve("gone-errors.log"), 30));
        }
    }

    /**
     * The Call-IDs of the INVITEs the phone's SIPp logged as received. A
     * call's INVITE can arrive twice: the node retransmits it on its UDP hop
     * to the balancer when the 180 is late (RFC 3261 §17.1.1.2), the
     * balancer passes the copy on, and the phone absorbs it.
     */
    private static Set<String> invitedCalls(Path messages) throws IOException {
        Set<String> calls = new HashSet<>();
        for (String entry : Files.readString(messages, StandardCharsets.ISO_8859_1).split("\n-{20,} ")) {
            if (!entry.contains("message received") || !entry.contains("\nINVITE sip:")) {
                continue;
            }
            for (String line : entry.split("\r?\n")) {
                if (line.regionMatches(true, 0, "Call-ID:", 0, 8)) {
                    calls.add(line.substring(8).strip());
                    break;
                }
            }
        }
        return calls;
    }

    private static String scenario(String name) {
        return Path.of("sipp", name).toAbsolutePath().toString();
    }

    /** Waits, with a deadline, for the phone's SIPp to log the 200 that made it an outbound registration. */
    private static void awaitRegistered(Path messages, Process phone, Duration timeout) {
        Eventually.until(() -> {
            if (!phone.isAlive()) {
                throw new AssertionError("the phone's SIPp ended before registering (exit " + phone.exitValue() + ")");
            }
            try {
                return Files.exists(messages)
                        && Files.readString(messages, StandardCharsets.ISO_8859_1).contains("Require: outbound");
            } catch (IOException e) {
                return false;
            }
        }, timeout, "a 200 with Require: outbound");
    }
}
