package org.p2psip.loadtest;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.InetAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Clients nobody here wrote against a cluster that requires digest
 * authentication: two baresip softphones register with their passwords
 * and call each other through the balancer, one with a wrong password is
 * refused and bound nowhere, and SIPVicious' svwar and svcrack, the tools
 * an attacker reaches for first, learn neither a user nor a password.
 */
@Timeout(300)
class RealClientsAcceptanceTest {

    @TempDir
    static Path work;

    private static AuthenticatedCluster cluster;
    private static String proxy;

    @BeforeAll
    static void startCluster() throws Exception {
        Baresip.binary();
        for (String tool : List.of("svwar", "svcrack")) {
            InstalledTool.path(tool, "sipvicious");
        }
        cluster = AuthenticatedCluster.start(work, "hazelcast", 2, 2);
        cluster.importUsers("phone", 3);
        proxy = "127.0.0.1:" + cluster.lbPort();
    }

    @AfterAll
    static void stopCluster() throws Exception {
        if (cluster != null) {
            cluster.close();
        }
    }

    private static String aor(String user) {
        return "sip:" + user + "@" + AuthenticatedCluster.DOMAIN;
    }

    @Test
    void twoBaresipPhonesRegisterWithTheirPasswordsAndCallEachOtherThroughTheCluster() throws Exception {
        try (Baresip bob = Baresip.start(work, "bob", aor("phoneu1"), AuthenticatedCluster.password("phoneu1"), proxy, true);
             Baresip alice = Baresip.start(work, "alice", aor("phoneu0"), AuthenticatedCluster.password("phoneu0"), proxy,
                     false)) {
            bob.awaitOutput("phoneu1@p2psip.test: {0/UDP/v4} 200 OK", Duration.ofSeconds(20));
            alice.awaitOutput("phoneu0@p2psip.test: {0/UDP/v4} 200 OK", Duration.ofSeconds(20));

            alice.command("dial", aor("phoneu1"));
            alice.awaitOutput("Call established: " + aor("phoneu1"), Duration.ofSeconds(20));
            bob.awaitOutput("Call established: " + aor("phoneu0"), Duration.ofSeconds(20));
            alice.command("hangup", "");
            // The BYE reached bob through the node that recorded the route.
            bob.awaitOutput(aor("phoneu0") + ": session closed", Duration.ofSeconds(20));
        }
    }

    @Test
    void aBaresipPhoneWithAWrongPasswordGets401AndNoBinding() throws Exception {
        try (Baresip mallory = Baresip.start(work, "mallory", aor("phoneu2"), "not-the-password", proxy, false)) {
            // baresip answers each fresh challenge with the same wrong password until it gives up: with 401, or
            // with 403 once the cluster stops hearing its address out for that user (too many failed logins).
            mallory.awaitOutput("reg: " + aor("phoneu2") + ": 40", Duration.ofSeconds(20));
            assertFalse(mallory.output().contains("200 OK"), mallory.tail());
        }
        // The user's own phone, at another address.
        try (SipUdpClient client = new SipUdpClient(InetAddress.getByName("127.0.0.2"))) {
            String bindings = client.registerWithPassword(cluster.lbPort(), "phoneu2",
                    AuthenticatedCluster.password("phoneu2"), null, "check-" + UUID.randomUUID(), null);
            assertEquals(200, SipUdpClient.statusOf(bindings), bindings);
            assertEquals(List.of(), SipUdpClient.contactsOf(bindings), "the refused phone is bound nowhere");
        }
    }

    @Test
    void svwarFindsNoExtensionAndSvcrackNoPassword() throws Exception {
        Path users = work.resolve("svwar-dictionary.txt");
        Files.write(users, List.of("phoneu0", "phoneu1", "phoneu2", "100", "1000", "admin"), StandardCharsets.UTF_8);
        String port = Integer.toString(cluster.lbPort());

        String plain = run("svwar", "-d", users.toString(), "-p", port, "127.0.0.1");
        assertTrue(plain.contains("found nothing"), plain);
        for (String method : List.of("REGISTER", "INVITE", "OPTIONS")) {
            String forced = run("svwar", "--force", "-m", method, "-d", users.toString(), "-p", port, "127.0.0.1");
            assertFalse(forced.contains("| phoneu"), method + " scan told users apart:\n" + forced);
        }

        Path passwords = work.resolve("svcrack-dictionary.txt");
        Files.write(passwords, List.of("1234", "password", "phoneu0", "secret", "0000", "admin"), StandardCharsets.UTF_8);
        String cracked = run("svcrack", "-u", "phoneu0", "-d", passwords.toString(), "-p", port, "127.0.0.1");
        assertTrue(cracked.contains("found nothing"), cracked);
        assertFalse(cracked.contains("[no password]"), cracked);
    }

    /** Runs a SIPVicious tool to completion (bounded) and returns what it printed. */
    private static String run(String... command) throws Exception {
        List<String> c = new ArrayList<>(List.of(command));
        Path out = Files.createTempFile(work, "sipvicious", ".txt");
        Process p = new ProcessBuilder(c).redirectErrorStream(true).redirectOutput(out.toFile()).start();
        if (!p.waitFor(90, TimeUnit.SECONDS)) {
            p.destroyForcibly();
            throw new AssertionError(String.join(" ", command) + " did not finish within 90 s");
        }
        return Files.readString(out, StandardCharsets.UTF_8);
    }
}
