package org.p2psip.loadtest;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.p2psip.core.testing.FreePorts;

/**
 * SHA-256 digest with a real client (SIPp 3.6 and baresip 1.x know MD5
 * only): Debian's linphonec (liblinphone 5, belle-sip) registers with a
 * node that offers SHA-256, SHA-512-256 and MD5 in that order, answers the
 * SHA-256 challenge, and its binding is there. It registers with the
 * README's own linphonec command ("Register a phone").
 */
@Timeout(120)
class LinphoneAcceptanceTest {

    private static final String SECRET = "linphone-acceptance-" + UUID.randomUUID();

    @TempDir
    Path work;

    private static String binary() {
        return InstalledTool.path("linphonec", "linphone-cli");
    }

    @Test
    void linphoneRegistersAnsweringTheSha256Challenge() throws Exception {
        String linphonec = binary();
        int sip = FreePorts.udpAndTcp();
        int admin = FreePorts.udpAndTcp();
        try (NodeProcess node = NodeProcess.start(Map.of("P2PSIP_CLUSTER_SECRET", SECRET), "node", "--dht", "local",
                "--sip", "127.0.0.1:" + sip, "--domain", "p2psip.test", "--admin", "127.0.0.1:" + admin)) {
            node.awaitOutput("listening", Duration.ofSeconds(60));
            Path csv = work.resolve("users.csv");
            Files.write(csv, List.of("alice@p2psip.test,wonderland"), StandardCharsets.UTF_8);
            try (NodeProcess importer = NodeProcess.start(Map.of("P2PSIP_CLUSTER_SECRET", SECRET), "user", "import",
                    csv.toString(), "--cluster", "127.0.0.1:" + admin)) {
                assertEquals(0, importer.awaitExit(Duration.ofSeconds(60)), String.join("\n", importer.output()));
            }

            Path home = work.resolve("home");
            Files.createDirectories(home.resolve(".local/share/linphone"));
            Path rc = home.resolve("linphonerc");
            int phonePort = FreePorts.udpAndTcp();
            Files.write(rc, List.of("[sip]", "sip_port=" + phonePort, "sip_tcp_port=-1", "sip_tls_port=-1",
                    "bind_address=127.0.0.1"), StandardCharsets.UTF_8);
            Path out = work.resolve("linphonec.txt");
            ProcessBuilder pb = new ProcessBuilder(linphonec, "-c", rc.toString(), "-d", "6")
                    .redirectErrorStream(true).redirectOutput(out.toFile());
            pb.environment().put("HOME", home.toString());
            Process phone = pb.start();
            try {
                OutputStream commands = phone.getOutputStream();
                // The README's line ("Register a phone"), pointed at this test's node.
                String register = ReadmeBlocks.line(ReadmeBlocks.read().withLine("register sip:alice@p2psip.test"),
                        "register sip:alice@p2psip.test");
                assertTrue(register.contains("sip:127.0.0.1:5060 "), register);
                say(commands, register.replace("sip:127.0.0.1:5060 ", "sip:127.0.0.1:" + sip + " "));
                String text = awaitOutput(out, Pattern.compile("(?m)^SIP/2\\.0 200 OK"), Duration.ofSeconds(30), phone);
                Matcher auth = Pattern.compile("(?m)^Authorization:.*").matcher(text);
                assertTrue(auth.find(), "linphone sent no credentials:\n" + tail(text));
                assertTrue(auth.group().contains("algorithm=SHA-256"), auth.group());
                say(commands, "status register");
                awaitOutput(out, Pattern.compile("registered, identity=sip:alice@p2psip.test"), Duration.ofSeconds(10),
                        phone);
                // While the phone runs: on exit it removes its binding.
                try (SipUdpClient client = new SipUdpClient()) {
                    String bindings = client.registerWithPassword(sip, "alice", "wonderland", null,
                            "check-" + UUID.randomUUID(), null);
                    assertEquals(200, SipUdpClient.statusOf(bindings), bindings);
                    assertTrue(SipUdpClient.contactsOf(bindings).stream().anyMatch(c -> c.contains(":" + phonePort)),
                            "linphone's contact is bound:\n" + bindings);
                }
            } finally {
                phone.destroy();
                if (!phone.waitFor(10, TimeUnit.SECONDS)) {
                    phone.destroyForcibly();
                }
            }

        }
    }

    private static void say(OutputStream commands, String line) throws IOException {
        commands.write((line + "\n").getBytes(StandardCharsets.UTF_8));
        commands.flush();
    }

    private static String awaitOutput(Path out, Pattern pattern, Duration timeout, Process phone) throws Exception {
        Instant deadline = Instant.now().plus(timeout);
        String text = "";
        while (Instant.now().isBefore(deadline)) {
            text = Files.exists(out) ? Files.readString(out, StandardCharsets.ISO_8859_1) : "";
            if (pattern.matcher(text).find()) {
                return text;
            }
            if (!phone.isAlive()) {
                break;
            }
            TimeUnit.MILLISECONDS.sleep(100);
        }
        throw new AssertionError("linphonec did not print " + pattern + " within " + timeout + ":\n" + tail(text));
    }

    private static String tail(String text) {
        return text.length() > 4000 ? text.substring(text.length() - 4000) : text;
    }
}
