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
import java.util.Map;
import java.util.UUID;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.p2psip.core.testing.FreePorts;

/**
 * Acceptance with a client nobody here wrote: a node that requires digest
 * authentication (MD5, all SIPp 3.6 knows), its users provisioned with
 * {@code p2psip user import}; the real SIPp registers 10,000 of them,
 * answering each 401, refreshes them, and its built-in {@code uac} calls
 * its built-in {@code uas} through the node.
 */
@Timeout(600)
class SippAcceptanceTest {

    private static final int AORS = 10_000;
    private static final String DOMAIN = "p2psip.test";
    private static final String SECRET = "sipp-acceptance-" + UUID.randomUUID();
    private static final Path SCENARIOS = Path.of("sipp").toAbsolutePath();

    @TempDir
    static Path work;

    private static NodeProcess node;
    private static int nodePort;
    private static int adminPort;

    @BeforeAll
    static void startNode() throws Exception {
        Sipp.binary();
        nodePort = FreePorts.udpAndTcp();
        adminPort = FreePorts.udpAndTcp();
        node = NodeProcess.start(Map.of("P2PSIP_CLUSTER_SECRET", SECRET), "node", "--dht", "local",
                "--sip", "127.0.0.1:" + nodePort, "--domain", DOMAIN, "--digest-algorithms", "MD5",
                "--admin", "127.0.0.1:" + adminPort);
        node.awaitOutput("listening", Duration.ofSeconds(60));
        List<String> rows = new ArrayList<>(List.of("aor,password", "callee@" + DOMAIN + "," + password("callee")));
        for (int i = 0; i < AORS; i++) {
            rows.add("user" + i + "@" + DOMAIN + "," + password("user" + i));
        }
        Path csv = work.resolve("users-import.csv");
        Files.write(csv, rows, StandardCharsets.UTF_8);
        try (NodeProcess importer = NodeProcess.start(Map.of("P2PSIP_CLUSTER_SECRET", SECRET), "user", "import",
                csv.toString(), "--cluster", "127.0.0.1:" + adminPort)) {
            assertEquals(0, importer.awaitExit(Duration.ofSeconds(120)), String.join("\n", importer.output()));
        }
    }

    @AfterAll
    static void stopNode() throws Exception {
        if (node != null) {
            node.close();
        }
    }

    private static String password(String user) {
        return "secret-" + user;
    }

    @Test
    void tenThousandProvisionedUsersRegisterWithDigestThenRefreshWithZeroFailures() throws Exception {
        Path users = work.resolve("users.csv");
        List<String> rows = new ArrayList<>(AORS + 1);
        rows.add("SEQUENTIAL");
        String run = UUID.randomUUID().toString().substring(0, 8);
        for (int i = 0; i < AORS; i++) {
            rows.add("user" + i + ";127.0.0.1:" + (20000 + i % 40000) + ";" + password("user" + i));
        }
        Files.write(users, rows, StandardCharsets.ISO_8859_1);

        for (int pass = 1; pass <= 2; pass++) {
            // Each pass sends CSeq n (unauthenticated) and n + 1 (answering the 401); the second pass is a refresh.
            Sipp.Result result = Sipp.run(work, Duration.ofSeconds(180),
                    "-sf", SCENARIOS.resolve("register-auth.xml").toString(), "-inf", users.toString(),
                    "-au", "[field0]", "-ap", "[field2]", "-base_cseq", Integer.toString(2 * pass - 1),
                    "-cid_str", "reg-" + run + "-%u", "-m", Integer.toString(AORS), "-r", "1000", "-l", "2000",
                    "-i", "127.0.0.1", "-p", Integer.toString(FreePorts.udpAndTcp()), "127.0.0.1:" + nodePort);
            assertEquals(0, result.exitCode(), "pass " + pass + ": " + result);
            assertEquals(AORS, result.successful(), "pass " + pass + ": " + result);
            assertEquals(0, result.failed(), "pass " + pass + ": " + result);
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
        int uasPort = FreePorts.udpAndTcp();
        Process uas = Sipp.startBackground(work, "-sn", "uas", "-i", "127.0.0.1", "-p", Integer.toString(uasPort));
        try {
            Sipp.Result register = Sipp.registerOneWithPassword(work, "callee", password("callee"),
                    "127.0.0.1:" + uasPort, "127.0.0.1:" + nodePort);
            assertEquals(0, register.exitCode(), register.toString());

            Sipp.Result calls = Sipp.run(work, Duration.ofSeconds(120),
                    "-sn", "uac", "-s", "callee", "-m", "200", "-r", "50", "-l", "100",
                    "-i", "127.0.0.1", "-p", Integer.toString(FreePorts.udpAndTcp()), "127.0.0.1:" + nodePort);
            assertEquals(0, calls.exitCode(), calls.toString());
            assertEquals(200, calls.successful(), calls.toString());
            assertEquals(0, calls.failed(), calls.toString());
            assertTrue(uas.isAlive(), "the SIPp uas died during the run");
        } finally {
            uas.destroy();
        }
    }

    /** A REGISTER without Contact, with the user's password: the current bindings (RFC 3261 §10.3 step 8). */
    private static String fetchBindings(String user) throws IOException {
        try (SipUdpClient client = new SipUdpClient()) {
            return client.registerWithPassword(nodePort, user, password(user), null, "fetch-" + UUID.randomUUID(), null);
        }
    }
}
