package org.p2psip.servlet.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayInputStream;
import java.io.InputStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.p2psip.core.auth.UserCredentials;
import org.p2psip.core.location.AddressOfRecord;
import org.p2psip.core.net.HostPort;
import org.p2psip.servlet.node.FrontNode;
import org.p2psip.servlet.node.NodeSettings;
import org.p2psip.servlet.node.TrustSettings;

import picocli.CommandLine;

/** {@code p2psip user ...} against a node's real admin endpoint. */
class UserCommandTest {

    private static final String SECRET = "user-command-test-secret";

    @TempDir
    static Path dir;

    private static FrontNode node;
    private static Path secretFile;
    private static String admin;

    @BeforeAll
    static void startNode() throws Exception {
        node = FrontNode.start(NodeSettings.local(new HostPort("127.0.0.1", 0)).withTrust(TrustSettings.DEFAULT
                .withDomains(List.of("p2psip.test")).withClusterSecret(SECRET).withAdmin(new HostPort("127.0.0.1", 0))));
        admin = node.adminAddress().orElseThrow().toString();
        secretFile = dir.resolve("secret");
        Files.writeString(secretFile, SECRET + "\n", StandardCharsets.UTF_8);
    }

    @AfterAll
    static void stopNode() {
        node.close();
    }

    private record Run(int exit, String out, String err) {
    }

    private static Run run(String stdin, String... args) {
        InputStream saved = System.in;
        System.setIn(new ByteArrayInputStream(stdin.getBytes(StandardCharsets.UTF_8)));
        try {
            CommandLine cl = P2psip.commandLine();
            StringWriter out = new StringWriter();
            StringWriter err = new StringWriter();
            cl.setOut(new PrintWriter(out));
            cl.setErr(new PrintWriter(err));
            int exit = cl.execute(args);
            return new Run(exit, out.toString(), err.toString());
        } finally {
            System.setIn(saved);
        }
    }

    private static Run user(String stdin, String... args) {
        String[] all = new String[args.length + 5];
        all[0] = "user";
        System.arraycopy(args, 0, all, 1, args.length);
        all[args.length + 1] = "--cluster";
        all[args.length + 2] = admin;
        all[args.length + 3] = "--cluster-secret-file";
        all[args.length + 4] = secretFile.toString();
        return run(stdin, all);
    }

    private static AddressOfRecord aor(String text) {
        return AddressOfRecord.parse(text);
    }

    @Test
    void addStoresHa1ForEveryAlgorithmAndAnAliasAddressBecomesTheDomain() {
        Run added = user("wonderland\n", "add", "alice@p2psip.test", "--password-stdin");
        Run viaAlias = user("looking-glass\n", "add", "march-hare@" + node.sipAddress(), "--password-stdin");

        assertEquals(0, added.exit(), added.err());
        assertTrue(added.out().contains("added sip:alice@p2psip.test"), added.out());
        assertEquals(0, viaAlias.exit(), viaAlias.err());
        assertEquals(UserCredentials.fromPassword(aor("sip:alice@p2psip.test"), "wonderland"),
                node.credentials().find(aor("sip:alice@p2psip.test")).join().orElseThrow());
        assertTrue(node.credentials().find(aor("sip:march-hare@p2psip.test")).join().isPresent());
        assertTrue(user("", "list").out().lines().toList().contains("sip:alice@p2psip.test"));
    }

    @Test
    void importChecksTheWholeFileBeforeWritingAnything() throws Exception {
        Path good = dir.resolve("good.csv");
        Files.write(good, List.of("aor,password", "# the tea party", "dormouse@p2psip.test,sleepy, very",
                "hatter@p2psip.test,tea"), StandardCharsets.UTF_8);
        Path bad = dir.resolve("bad.csv");
        Files.write(bad, List.of("queen@p2psip.test,hearts", "knave@elsewhere.test,tarts"), StandardCharsets.UTF_8);

        Run imported = user("", "import", good.toString());
        Run refused = user("", "import", bad.toString());

        assertEquals(0, imported.exit(), imported.err());
        assertTrue(imported.out().contains("imported 2 users"), imported.out());
        assertEquals(UserCredentials.fromPassword(aor("sip:dormouse@p2psip.test"), "sleepy, very"),
                node.credentials().find(aor("sip:dormouse@p2psip.test")).join().orElseThrow());
        assertEquals(1, refused.exit());
        assertEquals(1, refused.err().lines().count(), refused.err());
        assertTrue(refused.err().contains("line 2") && refused.err().contains("not served"), refused.err());
        assertTrue(node.credentials().find(aor("sip:queen@p2psip.test")).join().isEmpty(), "nothing written");
    }

    @Test
    void removeTakesTheUserOutAndSaysWhenThereWasNone() {
        user("x\n", "add", "cheshire@p2psip.test", "--password-stdin");
        Run removed = user("", "remove", "cheshire@p2psip.test");
        Run again = user("", "remove", "cheshire@p2psip.test");

        assertEquals(0, removed.exit(), removed.err());
        assertTrue(node.credentials().find(aor("sip:cheshire@p2psip.test")).join().isEmpty());
        assertEquals(1, again.exit());
        assertTrue(again.err().contains("no user sip:cheshire@p2psip.test"), again.err());
    }

    @Test
    void aWrongSecretIsRefusedAndWritesNothing() throws Exception {
        Path wrong = dir.resolve("wrong-secret");
        Files.writeString(wrong, "guess", StandardCharsets.UTF_8);
        Run r = run("pw\n", "user", "add", "mallory@p2psip.test", "--password-stdin", "--cluster", admin,
                "--cluster-secret-file", wrong.toString());

        assertEquals(1, r.exit());
        assertEquals(1, r.err().lines().count(), r.err());
        assertTrue(r.err().contains("refused"), r.err());
        assertTrue(node.credentials().find(aor("sip:mallory@p2psip.test")).join().isEmpty());
    }

    @Test
    void aMissingPasswordOrUnreachableClusterIsAOneLineError() {
        Run noPassword = user("", "add", "bill@p2psip.test", "--password-stdin");
        Run unreachable = run("", "user", "list", "--cluster", "127.0.0.1:9", "--cluster-secret-file", secretFile.toString());

        assertEquals(2, noPassword.exit());
        assertTrue(noPassword.err().contains("no password"), noPassword.err());
        assertEquals(1, unreachable.exit());
        assertTrue(unreachable.err().contains("no admin endpoint answers at 127.0.0.1:9"), unreachable.err());
    }
    @Test
    void aUserWithoutADomainIsToldWhichPartIsMissing() {
        Run r = user("secret\n", "add", "bob", "--password-stdin");

        assertNotEquals(0, r.exit(), r.err());
        assertEquals(1, r.err().strip().lines().count(), r.err());
        assertTrue(r.err().contains("'bob' has no domain: write it as bob@p2psip.test"), r.err());
    }

    @Test
    void aFileThatIsNotThereIsSaidSoInWords() {
        Path absent = dir.resolve("absent.csv");
        Run imported = user("", "import", absent.toString());
        Run secret = run("", "user", "list", "--cluster", admin, "--cluster-secret-file", absent.toString());

        assertTrue(imported.err().contains("cannot read " + absent + ": no such file"), imported.err());
        assertTrue(secret.err().contains("cannot read " + absent + ": no such file"), secret.err());
    }

    @Test
    void everyEndpointTriedIsNamedWhenNoneAnswers() {
        Run r = run("", "user", "list", "--cluster", "127.0.0.1:9", "--cluster", "127.0.0.1:19",
                "--cluster-secret-file", secretFile.toString());

        assertEquals(1, r.exit());
        assertEquals(1, r.err().strip().lines().count(), r.err());
        assertTrue(r.err().contains("127.0.0.1:9 (no answer), 127.0.0.1:19 (no answer)"), r.err());
    }
}
