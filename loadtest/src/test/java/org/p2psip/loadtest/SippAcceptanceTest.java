package org.p2psip.loadtest;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Acceptance with a client nobody here wrote: the real SIPp registers
 * 10,000 distinct AORs with a running node process, refreshes them, and its
 * built-in {@code uac} calls its built-in {@code uas} through the node.
 */
@Timeout(600)
class SippAcceptanceTest {

    private static final int AORS = 10_000;
    private static final Path SCENARIOS = Path.of("sipp").toAbsolutePath();

    @TempDir
    static Path work;

    private static NodeProcess node;
    private static int nodePort;

    @BeforeAll
    static void startNode() throws Exception {
        Sipp.binary();
        nodePort = FreePort.udpAndTcp();
        node = NodeProcess.start("node", "--dht", "local", "--sip", "127.0.0.1:" + nodePort);
        node.awaitOutput("listening", Duration.ofSeconds(60));
    }

    @AfterAll
    static void stopNode() throws Exception {
        if (node != null) {
            node.close();
        }
    }

    @Test
    void tenThousandAorsRegisterThenRefreshWithZeroFailures() throws Exception {
        Path users = work.resolve("users.csv");
        List<String> rows = new ArrayList<>(AORS + 1);
        rows.add("SEQUENTIAL");
        String run = UUID.randomUUID().toString().substring(0, 8);
        for (int i = 0; i < AORS; i++) {
            rows.add("user" + i + ";127.0.0.1:" + (20000 + i % 40000));
        }
        Files.write(users, rows, StandardCharsets.ISO_8859_1);

        for (int cseq = 1; cseq <= 2; cseq++) {
            Sipp.Result pass = Sipp.run(work, Duration.ofSeconds(180),
                    "-sf", SCENARIOS.resolve("register.xml").toString(),
                    "-inf", users.toString(), "-key", "regcseq", Integer.toString(cseq), "-cid_str", "reg-" + run + "-%u",
                    "-m", Integer.toString(AORS), "-r", "1000", "-l", "2000",
                    "-i", "127.0.0.1", "-p", Integer.toString(FreePort.udpAndTcp()),
                    "127.0.0.1:" + nodePort);
            assertEquals(0, pass.exitCode(), "pass " + cseq + ": " + pass);
            assertEquals(AORS, pass.successful(), "pass " + cseq + ": " + pass);
            assertEquals(0, pass.failed(), "pass " + cseq + ": " + pass);
        }

        for (int i : new int[] {0, AORS / 2, AORS - 1}) {
            String response = fetchBindings("user" + i);
            assertTrue(response.startsWith("SIP/2.0 200"), response);
            Matcher contact = Pattern.compile("(?im)^(Contact|m)\\s*:.*<sip:user" + i + "@127\\.0\\.0\\.1:\\d+>.*expires=(\\d+)")
                    .matcher(response);
            assertTrue(contact.find(), "user" + i + " is not bound after the refresh:\n" + response);
            assertTrue(Integer.parseInt(contact.group(2)) > 3000, response);
        }
    }

    @Test
    void sippUacCallsARegisteredSippUasThroughTheNodeWithZeroFailedCalls() throws Exception {
        int uasPort = FreePort.udpAndTcp();
        Process uas = Sipp.startBackground(work, "-sn", "uas", "-i", "127.0.0.1", "-p", Integer.toString(uasPort));
        try {
            Sipp.Result register = Sipp.registerOne(work, "callee", "127.0.0.1:" + uasPort,
                    "127.0.0.1:" + nodePort, "127.0.0.1:" + nodePort);
            assertEquals(0, register.exitCode(), register.toString());

            Sipp.Result calls = Sipp.run(work, Duration.ofSeconds(120),
                    "-sn", "uac", "-s", "callee", "-m", "200", "-r", "50", "-l", "100",
                    "-i", "127.0.0.1", "-p", Integer.toString(FreePort.udpAndTcp()), "127.0.0.1:" + nodePort);
            assertEquals(0, calls.exitCode(), calls.toString());
            assertEquals(200, calls.successful(), calls.toString());
            assertEquals(0, calls.failed(), calls.toString());
            assertTrue(uas.isAlive(), "the SIPp uas died during the run");
        } finally {
            uas.destroy();
        }
    }

    /** A REGISTER without Contact: the registrar answers with the current bindings (RFC 3261 §10.3 step 8). */
    private static String fetchBindings(String user) throws IOException {
        try (SipUdpClient client = new SipUdpClient()) {
            return client.exchange(nodePort,
                    client.register(nodePort, user, null, "fetch-" + UUID.randomUUID(), 1, null));
        }
    }
}
