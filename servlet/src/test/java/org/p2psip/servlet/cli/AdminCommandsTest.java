package org.p2psip.servlet.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.p2psip.core.location.AddressOfRecord;
import org.p2psip.core.net.HostPort;
import org.p2psip.core.testing.RequestText;
import org.p2psip.core.testing.UdpPeer;
import org.p2psip.servlet.node.FrontNode;
import org.p2psip.servlet.node.NodeSettings;
import org.p2psip.servlet.node.TrustSettings;

/** {@code p2psip status} and {@code p2psip aor} against a node's real admin endpoint, after real REGISTERs. */
class AdminCommandsTest {

    private static final String SECRET = "admin-commands-test-secret";
    private static final String DOMAIN = "p2psip.test";

    @TempDir
    static Path dir;

    private static FrontNode node;
    private static Path secretFile;
    private static String admin;

    @BeforeAll
    static void startNode() throws Exception {
        node = FrontNode.start(NodeSettings.local(new HostPort("127.0.0.1", 0)).withTrust(TrustSettings.open(DOMAIN)
                .withClusterSecret(SECRET).withAdmin(new HostPort("127.0.0.1", 0))));
        admin = node.adminAddress().orElseThrow().toString();
        secretFile = dir.resolve("secret");
        Files.writeString(secretFile, SECRET + "\n", StandardCharsets.UTF_8);
    }

    @AfterAll
    static void stopNode() {
        node.close();
    }

    private static LbCommandTest.Run run(String... args) {
        return LbCommandTest.run(args);
    }

    private static LbCommandTest.Run admin(String... args) {
        List<String> all = new ArrayList<>(List.of(args));
        all.addAll(List.of("--cluster", admin, "--cluster-secret-file", secretFile.toString()));
        return run(all.toArray(String[]::new));
    }

    /** Registers {@code contacts} for {@code user} over UDP, one REGISTER each, and checks each got 200. */
    private static void register(String user, String... contacts) throws Exception {
        String aor = "sip:" + user + "@" + DOMAIN;
        String callId = "adm-" + UUID.randomUUID();
        try (UdpPeer ua = new UdpPeer()) {
            int cseq = 1;
            for (String contact : contacts) {
                ua.send(RequestText.standard("REGISTER", "sip:" + DOMAIN, ua.hostPort(), aor, aor, callId, cseq++)
                        .with("Contact: <" + contact + ">;q=0.5").with("Expires: 600").text(), node.sipAddress());
                ua.expectResponse("REGISTER", 200);
            }
        }
    }

    @Test
    void showListsWhatWasRegisteredAndWhoHoldsIt() throws Exception {
        register("alice", "sip:alice@192.0.2.1:5060", "sip:alice@192.0.2.2:5070");

        LbCommandTest.Run shown = admin("aor", "show", "alice@" + DOMAIN);

        assertEquals(0, shown.exit(), shown.err());
        assertTrue(shown.out().startsWith("sip:alice@" + DOMAIN + "\n"), shown.out());
        assertTrue(shown.out().contains("sip:alice@192.0.2.1:5060"), shown.out());
        assertTrue(shown.out().contains("sip:alice@192.0.2.2:5070"), shown.out());
        assertTrue(shown.out().contains("owner"), shown.out());
        assertTrue(shown.out().contains("0.500"), shown.out());
        LbCommandTest.Run json = admin("aor", "show", "alice@" + DOMAIN, "--json");
        assertEquals(0, json.exit(), json.err());
        assertTrue(json.out().startsWith("{\"aor\":\"sip:alice@" + DOMAIN + "\",\"owner\":{"), json.out());
        assertEquals(2, json.out().split("\"contact\":", -1).length - 1, json.out());
    }

    @Test
    void removeTakesEveryBindingAndShowThenListsNone() throws Exception {
        register("bob", "sip:bob@192.0.2.3", "sip:bob@192.0.2.4");

        LbCommandTest.Run removed = admin("aor", "remove", "bob@" + DOMAIN);

        assertEquals(0, removed.exit(), removed.err());
        assertTrue(removed.out().contains("removed 2 bindings of sip:bob@" + DOMAIN), removed.out());
        assertTrue(node.locationService().lookup(AddressOfRecord.parse("sip:bob@" + DOMAIN)).join().isEmpty());
        LbCommandTest.Run shown = admin("aor", "show", "bob@" + DOMAIN);
        assertTrue(shown.out().contains("no bindings"), shown.out());
        assertTrue(admin("aor", "remove", "bob@" + DOMAIN).out().contains("removed 0 bindings"));
    }

    @Test
    void anAorOfAnotherDomainIsOneLine() {
        LbCommandTest.Run r = admin("aor", "show", "carol@elsewhere.test");

        assertEquals(1, r.exit());
        assertEquals(1, r.err().strip().lines().count(), r.err());
        assertTrue(r.err().contains("not served"), r.err());
    }

    @Test
    void statusShowsTheNodeItsBackendAndTheRegistersItTook() throws Exception {
        register("dave", "sip:dave@192.0.2.5");

        LbCommandTest.Run status = admin("status", "--interval", "200");

        assertEquals(0, status.exit(), status.err());
        String row = status.out().lines().filter(l -> l.startsWith(admin)).findFirst().orElseThrow();
        assertTrue(row.contains(node.sipAddress().toString()), status.out());
        assertTrue(row.contains("local"), status.out());
        assertTrue(status.out().contains("1 of 1 nodes answered"), status.out());
        LbCommandTest.Run json = admin("status", "--interval", "200", "--json");
        assertTrue(json.out().contains("\"backend\":\"local\""), json.out());
        long registers = Long.parseLong(json.out().replaceAll("(?s).*\"registers\":(\\d+).*", "$1"));
        assertTrue(registers >= 1, json.out());
    }

    @Test
    void aWrongSecretAndAnUnreachableClusterAreOneLineErrors() throws Exception {
        Path wrong = dir.resolve("wrong");
        Files.writeString(wrong, "not-the-secret\n", StandardCharsets.UTF_8);
        LbCommandTest.Run refused = run("aor", "show", "alice@" + DOMAIN, "--cluster", admin, "--cluster-secret-file",
                wrong.toString());
        assertEquals(1, refused.exit());
        assertEquals(1, refused.err().strip().lines().count(), refused.err());
        assertTrue(refused.err().contains("secret"), refused.err());

        int closed;
        try (ServerSocket s = new ServerSocket(0)) {
            closed = s.getLocalPort();
        }
        LbCommandTest.Run down = run("status", "--interval", "100", "--cluster", "127.0.0.1:" + closed, "--cluster-secret-file",
                secretFile.toString());
        assertEquals(1, down.exit());
        assertEquals(1, down.err().strip().lines().count(), down.err());
        assertTrue(down.err().contains("did not answer"), down.err());
        assertFalse(down.out().contains("nodes answered; together"), down.out());
        assertTrue(down.out().lines().anyMatch(l -> l.matches("127\\.0\\.0\\.1:" + closed + " +down: .*")), down.out());
    }

    @Test
    void aNodeThatRefusesAWrongSecretIsListedAsRefusedNotDown() throws Exception {
        Path wrong = dir.resolve("wrong-for-status");
        Files.writeString(wrong, "not-the-secret\n", StandardCharsets.UTF_8);

        LbCommandTest.Run status = run("status", "--interval", "100", "--cluster", admin, "--cluster-secret-file",
                wrong.toString());

        assertEquals(1, status.exit());
        String row = status.out().lines().filter(l -> l.startsWith(admin)).findFirst().orElseThrow();
        assertTrue(row.contains(" refused: ") && row.contains("secret"), status.out());
        assertFalse(row.contains("down"), row);
        assertEquals(1, status.err().strip().lines().count(), status.err());
        assertTrue(status.err().contains("1 of 1 nodes refused to report"), status.err());
        LbCommandTest.Run json = run("status", "--interval", "100", "--json", "--cluster", admin,
                "--cluster-secret-file", wrong.toString());
        assertTrue(json.out().contains("\"up\":false,\"answered\":true"), json.out());
    }
}
