package org.p2psip.loadtest;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.p2psip.servlet.cli.P2psip;

import picocli.CommandLine;

/**
 * {@code p2psip status} and {@code p2psip aor show} against three node
 * processes of each backend with two copies of every binding, after SIPp
 * registered 200 distinct AORs through one of them (once each, as SIPp
 * does): every AOR shows the contact SIPp registered, an owner among the
 * three nodes and one replica on another; an AOR nobody registered shows
 * none; {@code status} lists three nodes that together own the whole key
 * space and hold both copies of every binding. {@code status} is run as the
 * real command, in a process of its own.
 */
@Timeout(300)
class AdminCommandsClusterTest {

    private static final String DOMAIN = "p2psip.test";
    private static final int AORS = 200;
    private static final Pattern OWNER = Pattern.compile("^  owner +sip:(\\S+)", Pattern.MULTILINE);
    private static final Pattern REPLICA = Pattern.compile("^  replica +sip:(\\S+)", Pattern.MULTILINE);

    @TempDir
    Path work;

    private record Run(int exit, String out, String err) {
    }

    private static Run cli(String... args) {
        CommandLine cl = P2psip.commandLine();
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        cl.setOut(new PrintWriter(out));
        cl.setErr(new PrintWriter(err));
        int exit = cl.execute(args);
        return new Run(exit, out.toString(), err.toString());
    }

    @ParameterizedTest
    @ValueSource(strings = {"hazelcast", "chord", "kademlia"})
    void statusAndAorShowTellWhatSippRegisteredAndWhereItLives(String dht) throws Exception {
        try (OverlayNodes nodes = new OverlayNodes(dht, 2, Optional.of(DOMAIN))) {
            OverlayNodes.Member entry = nodes.startAll(3);
            Path secret = work.resolve("secret");
            Files.writeString(secret, nodes.secret() + "\n", StandardCharsets.UTF_8);
            String admins = nodes.members().stream().map(m -> "127.0.0.1:" + m.admin())
                    .collect(Collectors.joining(","));
            Set<String> sips = nodes.members().stream().map(m -> "127.0.0.1:" + m.sip()).collect(Collectors.toSet());

            Path csv = OverlayNodes.domainAors(work, "adm", AORS, DOMAIN);
            Sipp.Result registered = OverlayNodes.sippOnce(work, csv, "register-domain.xml", entry, "register",
                    AORS, 100);
            assertEquals(AORS, registered.successful(), registered::toString);

            List<String> wrong = new ArrayList<>();
            for (int i = 0; i < AORS; i++) {
                String aor = "adm" + i + "@" + DOMAIN;
                Run shown = cli("aor", "show", aor, "--cluster", admins, "--cluster-secret-file", secret.toString());
                Matcher owner = OWNER.matcher(shown.out());
                Matcher replica = REPLICA.matcher(shown.out());
                boolean right = shown.exit() == 0
                        && shown.out().contains("sip:adm" + i + "@127.0.0.1:5999 ")
                        && owner.find() && sips.contains(owner.group(1))
                        && replica.find() && sips.contains(replica.group(1))
                        && !replica.group(1).equals(owner.group(1));
                if (!right) {
                    wrong.add(aor + ": " + shown.out() + shown.err());
                }
            }
            assertEquals(List.of(), wrong.subList(0, Math.min(3, wrong.size())), wrong.size() + " AORs shown wrong");
            Run nobody = cli("aor", "show", "nobody@" + DOMAIN, "--cluster", admins, "--cluster-secret-file",
                    secret.toString());
            assertEquals(0, nobody.exit(), nobody.err());
            assertTrue(nobody.out().contains("no bindings"), nobody.out());

            NodeProcess status = NodeProcess.start(Map.of("P2PSIP_CLUSTER_SECRET", nodes.secret()), "status",
                    "--cluster", admins, "--json");
            assertEquals(0, status.awaitExit(Duration.ofSeconds(60)), String.join("\n", status.output()));
            String json = String.join("\n", status.output());
            System.out.println(dht + " status: " + json);
            assertEquals(3, count(json, "\"up\":true"), json);
            assertEquals(3, count(json, "\"backend\":\"" + dht + "\""), json);
            double owned = sum(json, "\"owns\":([0-9.E-]+)");
            double stored = sum(json, "\"stored\":([0-9]+)");
            assertTrue(Math.abs(owned - 1) < 0.01, "together they own " + owned + " of the key space: " + json);
            assertTrue(stored >= 2 * AORS, "they hold " + stored + " values for " + AORS + " AORs: " + json);
        }
    }

    private static int count(String text, String needle) {
        return text.split(Pattern.quote(needle), -1).length - 1;
    }

    private static double sum(String text, String regex) {
        Matcher m = Pattern.compile(regex).matcher(text);
        double total = 0;
        while (m.find()) {
            total += Double.parseDouble(m.group(1));
        }
        return total;
    }
}
