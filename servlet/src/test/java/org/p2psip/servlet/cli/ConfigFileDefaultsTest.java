package org.p2psip.servlet.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.p2psip.core.net.HostPort;
import org.p2psip.servlet.cli.LbCommandTest.Run;

import picocli.CommandLine;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Model.OptionSpec;

/**
 * {@code --config FILE} on {@code node}, {@code lb} and {@code cluster}:
 * what a file sets, what a flag overrides, and the one-line errors. Parsed
 * only (nothing starts), or executed where only a refusal is expected.
 */
class ConfigFileDefaultsTest {

    @TempDir
    Path dir;

    private Path file(String name, String... lines) throws IOException {
        return Files.writeString(dir.resolve(name), String.join("\n", lines) + "\n", StandardCharsets.UTF_8);
    }

    /** Parses {@code args} with the real command tree and returns the subcommand's object. */
    private static <T> T parsed(String command, String... args) {
        CommandLine cl = P2psip.commandLine();
        List<String> all = new ArrayList<>(List.of(command));
        all.addAll(List.of(args));
        cl.parseArgs(all.toArray(String[]::new));
        return cl.getSubcommands().get(command).getCommand();
    }

    @Test
    void aFilesSettingsReachTheNodesFieldsMixinsIncluded() throws IOException {
        Path conf = file("node.conf",
                "# a chord node",
                "dht = chord",
                "sip = 127.0.0.1:5070",
                "replicas = 2",
                "dht-client = true",
                "domain = a.test",
                "domain = b.test, c.test",
                "alias = 10.0.0.1, 10.0.0.2:5080",
                "dht-option = start-timeout-seconds=15",
                "dht-option = a=1, b=2",
                "access-log = /var/log/p2psip/access.log",
                "log-level = debug",
                "trusted-source = 10.0.0.1",
                "max-connections = 500",
                "overload-delay = 150",
                "tls-cert = /etc/p2psip/cert.pem");

        NodeCommand node = parsed("node", "--config", conf.toString());

        assertEquals("chord", node.dht);
        assertEquals(new HostPort("127.0.0.1", 5070), node.sip);
        assertEquals(2, node.replicas);
        assertTrue(node.dhtClient);
        assertEquals(List.of("a.test", "b.test", "c.test"), node.domains);
        assertEquals(List.of(new HostPort("10.0.0.1", 5060), new HostPort("10.0.0.2", 5080)), node.aliases);
        assertEquals(List.of("start-timeout-seconds", "a", "b"), List.copyOf(node.dhtOptions.keySet()));
        assertEquals("2", node.dhtOptions.get("b"));
        assertEquals(Path.of("/var/log/p2psip/access.log"), node.accessLog);
        assertEquals("debug", node.logLevel.level);
        assertEquals(List.of("10.0.0.1"), node.protection.sources.trusted);
        assertEquals(500, node.protection.connections.max);
        assertEquals(150, node.protection.overloadDelayMillis);
        assertEquals(Path.of("/etc/p2psip/cert.pem"), node.tls.certificate);
    }

    @Test
    void withoutAConfigFileNothingChanges() {
        NodeCommand node = parsed("node", "--sip", "127.0.0.1:5070");

        assertEquals("local", node.dht);
        assertEquals(1, node.replicas);
        assertEquals(List.of(), node.domains);
        assertFalse(node.dhtClient);
    }

    @Test
    void aFlagOverridesTheFileAndARepeatableFlagsValuesReplaceTheFiles() throws IOException {
        Path conf = file("node.conf", "sip = 127.0.0.1:5070", "replicas = 2", "domain = a.test", "domain = b.test",
                "dht-option = a=1", "dht-client = true", "log-level = debug");

        NodeCommand node = parsed("node", "--config", conf.toString(), "--replicas", "3", "--domain", "c.test",
                "--dht-option", "z=9", "--sip", "127.0.0.1:5071");

        assertEquals(3, node.replicas);
        assertEquals(List.of("c.test"), node.domains);
        assertEquals(Map.of("z", "9"), node.dhtOptions);
        assertEquals(new HostPort("127.0.0.1", 5071), node.sip);
        assertTrue(node.dhtClient, "a setting the command line leaves alone still applies");
        assertEquals("debug", node.logLevel.level);
    }

    @Test
    void aSwitchSetToFalseInTheFileIsOff() throws IOException {
        Path conf = file("node.conf", "sip = 127.0.0.1:5070", "dht-client = false");

        assertFalse(((NodeCommand) parsed("node", "--config", conf.toString())).dhtClient);
        assertTrue(((NodeCommand) parsed("node", "--config", conf.toString(), "--dht-client")).dhtClient);
    }

    @Test
    void requiredFlagsAreSatisfiedByTheFile() throws IOException {
        Path node = file("node.conf", "sip = 127.0.0.1:5070");
        Path lb = file("lb.conf", "sip = 127.0.0.1:5060", "nodes = 127.0.0.1:5061", "nodes = 127.0.0.1:5062");
        Path cluster = file("cluster.conf", "dht = chord", "nodes = 3", "sip = 127.0.0.1:5060");

        assertEquals(new HostPort("127.0.0.1", 5070), ((NodeCommand) parsed("node", "--config", node.toString())).sip);
        LbCommand balancer = parsed("lb", "--config", lb.toString());
        assertEquals(List.of(new HostPort("127.0.0.1", 5061), new HostPort("127.0.0.1", 5062)), balancer.nodes);
        ClusterCommand c = parsed("cluster", "--config", cluster.toString());
        assertEquals(3, c.nodeCount);
        assertEquals(2, c.replicas());
    }

    @Test
    void anOptionAnotherNameOfWhichIsTheKeyIsSetByEither() throws IOException {
        Path conf = file("node.conf", "sip = 127.0.0.1:5070", "overlay-secret = s3cr3t");

        assertEquals("s3cr3t", ((NodeCommand) parsed("node", "--config", conf.toString())).clusterSecret);
    }

    @Test
    void valuesAreLiteralDollarSignsAndBracesIncluded() throws IOException {
        Path conf = file("node.conf", "sip = 127.0.0.1:5070", "cluster-secret = a$$b${HOME}c$${USER}#d");

        assertEquals("a$$b${HOME}c$${USER}#d",
                ((NodeCommand) parsed("node", "--config", conf.toString())).clusterSecret);
    }

    @Test
    void eachParseReadsTheFileAgain() throws IOException {
        Path conf = file("node.conf", "sip = 127.0.0.1:5070", "replicas = 2");
        CommandLine cl = P2psip.commandLine();
        CommandLine node = cl.getSubcommands().get("node");

        cl.parseArgs("node", "--config", conf.toString());
        assertEquals(2, ((NodeCommand) node.getCommand()).replicas);
        file("node.conf", "sip = 127.0.0.1:5070", "replicas = 3");
        cl.parseArgs("node", "--config", conf.toString());
        assertEquals(3, ((NodeCommand) node.getCommand()).replicas);
        cl.parseArgs("node", "--sip", "127.0.0.1:5070");
        assertEquals(1, ((NodeCommand) node.getCommand()).replicas);
    }

    @Test
    void helpIgnoresTheFileEvenABrokenOne() throws IOException {
        Path conf = file("node.conf", "sip = 127.0.0.1:5070", "replicas = 2", "frobnicate = yes");

        Run r = LbCommandTest.run("node", "--config", conf.toString(), "--help");

        assertEquals(0, r.exit(), r.err());
        String flat = r.out().replaceAll("\\s+", " ");
        assertTrue(flat.contains("--config=FILE"), flat);
        assertTrue(flat.contains("per REGISTER. Default: 1."), "help shows the built-in default: " + flat);
    }

    @Test
    void aMissingFileIsOneLineUsageError() {
        Path absent = dir.resolve("absent.conf");

        Run r = LbCommandTest.run("node", "--config", absent.toString());

        assertRefused(r, "p2psip node: cannot read " + absent + ": no such file");
    }

    @Test
    void aFileThatIsNotUtf8IsOneLineUsageError() throws IOException {
        Path conf = Files.write(dir.resolve("latin1.conf"), "domain = m\u00fcller.test\n".getBytes(
                StandardCharsets.ISO_8859_1));

        assertRefused(LbCommandTest.run("node", "--config", conf.toString(), "--sip", "127.0.0.1:5070"),
                conf + " is not UTF-8 text");
    }

    @Test
    void aLineThatIsNoSettingNamesFileAndLine() throws IOException {
        Path conf = file("node.conf", "# x", "sip 127.0.0.1:5070");

        assertRefused(LbCommandTest.run("node", "--config", conf.toString()), conf + ":2: not a setting");
    }

    @Test
    void anUnknownKeyNamesFileLineCommandAndTheClosestKey() throws IOException {
        Path conf = file("node.conf", "sip = 127.0.0.1:5070", "", "domian = a.test");
        Path dashed = file("dashed.conf", "--sip = 127.0.0.1:5070");
        Path far = file("far.conf", "sip = 127.0.0.1:5070", "frobnicate = 1");

        assertRefused(LbCommandTest.run("node", "--config", conf.toString()),
                conf + ":3: unknown setting 'domian' for 'p2psip node' (did you mean 'domain'?)");
        assertRefused(LbCommandTest.run("node", "--config", dashed.toString()),
                dashed + ":1: unknown setting '--sip' for 'p2psip node' (did you mean 'sip'?)");
        Run r = LbCommandTest.run("lb", "--config", far.toString());
        assertRefused(r, far + ":2: unknown setting 'frobnicate' for 'p2psip lb'");
        assertFalse(r.err().contains("did you mean"), r.err());
    }

    @Test
    void aKeyOfAnotherCommandIsUnknownToThisOne() throws IOException {
        Path conf = file("lb.conf", "sip = 127.0.0.1:5060", "nodes = 127.0.0.1:5061", "replicas = 2");

        assertRefused(LbCommandTest.run("lb", "--config", conf.toString()),
                conf + ":3: unknown setting 'replicas' for 'p2psip lb'");
    }

    @Test
    void helpVersionAndConfigCannotBeSetInAFile() throws IOException {
        for (String key : new String[] {"help", "version", "config"}) {
            Path conf = file(key + ".conf", "sip = 127.0.0.1:5070", key + " = true");

            assertRefused(LbCommandTest.run("node", "--config", conf.toString()),
                    conf + ":2: '" + key + "' cannot be set in a configuration file");
        }
    }

    @Test
    void aSingleValuedKeyGivenTwiceNamesBothLines() throws IOException {
        Path twice = file("twice.conf", "sip = 127.0.0.1:5070", "replicas = 2", "# again", "replicas = 3");
        Path aliased = file("aliased.conf", "sip = 127.0.0.1:5070", "cluster-secret = a", "overlay-secret = b");

        assertRefused(LbCommandTest.run("node", "--config", twice.toString()),
                twice + ":4: 'replicas' is already set on line 2");
        assertRefused(LbCommandTest.run("node", "--config", aliased.toString()),
                aliased + ":3: 'overlay-secret' is already set on line 2 (as 'cluster-secret')");
    }

    @Test
    void aSwitchTakesOnlyTrueOrFalse() throws IOException {
        Path conf = file("node.conf", "sip = 127.0.0.1:5070", "dht-client = yes");

        assertRefused(LbCommandTest.run("node", "--config", conf.toString()),
                conf + ":2: 'dht-client' is a switch: true or false, not 'yes'");
    }

    @Test
    void anEmptyItemInACommaSeparatedListIsRefused() throws IOException {
        Path conf = file("lb.conf", "sip = 127.0.0.1:5060", "nodes = 127.0.0.1:5061,,127.0.0.1:5062");

        assertRefused(LbCommandTest.run("lb", "--config", conf.toString()),
                conf + ":2: 'nodes' has an empty item");
    }

    @Test
    void aValuePicocliRefusesNamesTheLineItCameFrom() throws IOException {
        Path number = file("number.conf", "sip = 127.0.0.1:5070", "replicas = two");
        Path item = file("item.conf", "sip = 127.0.0.1:5070", "bootstrap = 10.0.0.2:7001",
                "bootstrap = 10.0.0.3:7001, 10.0.0.4");
        Path pair = file("pair.conf", "sip = 127.0.0.1:5070", "dht-option = a=1", "dht-option = lonely");
        Path required = file("required.conf", "sip = localhost");

        assertRefused(LbCommandTest.run("node", "--config", number.toString()),
                number + ":2: Invalid value for option '--replicas'");
        assertRefused(LbCommandTest.run("node", "--config", item.toString()),
                item + ":3: Invalid value for option '--bootstrap'");
        assertRefused(LbCommandTest.run("node", "--config", pair.toString()), pair + ":3: ");
        assertRefused(LbCommandTest.run("node", "--config", required.toString()),
                required + ":1: Invalid value for option '--sip'");
    }

    @Test
    void aBadFlagIsNotBlamedOnTheFileEvenOneTheFileSetInTheLastParse() throws IOException {
        Path conf = file("node.conf", "sip = 127.0.0.1:5070", "replicas = 2");
        CommandLine cl = P2psip.commandLine();
        StringWriter err = new StringWriter();
        cl.setErr(new PrintWriter(err));

        cl.parseArgs("node", "--config", conf.toString());
        int exit = cl.execute("node", "--config", conf.toString(), "--replicas", "two");

        assertRefused(new Run(exit, "", err.toString()), "p2psip node: Invalid value for option '--replicas'");
        assertFalse(err.toString().contains(conf.toString()), err.toString());
    }

    @Test
    void aFilesValueTheCommandRefusesLaterIsRefusedLikeTheFlag() throws IOException {
        Path conf = file("cluster.conf", "dht = shared-local", "nodes = 2", "sip = 127.0.0.1:5060",
                "netns-clients = 3");

        assertRefused(LbCommandTest.run("cluster", "--config", conf.toString()),
                "p2psip cluster: --netns-clients needs --netns");
    }

    /** One line on stderr, exit code 2 (a usage error), and the line contains {@code expected}. */
    private static void assertRefused(Run r, String expected) {
        assertEquals(2, r.exit(), r.err());
        assertEquals(1, r.errLines().size(), r.err());
        assertTrue(r.err().contains(expected), "expected '" + expected + "' in: " + r.err());
        assertFalse(r.err().contains("Exception") || r.err().contains("\tat "), r.err());
    }

    @Test
    void everyOptionOfNodeLbAndClusterIsASettingOfItsFile() throws IOException {
        Map<String, List<String>> required = Map.of(
                "node", List.of("--sip", "127.0.0.1:5060"),
                "lb", List.of("--sip", "127.0.0.1:5060", "--nodes", "127.0.0.1:5061"),
                "cluster", List.of("--dht", "chord", "--nodes", "3", "--sip", "127.0.0.1:5060"));
        int checked = 0;
        for (String command : List.of("node", "lb", "cluster")) {
            CommandSpec unset = parse(command, required.get(command));
            for (OptionSpec option : unset.options()) {
                if (option.usageHelp() || option.versionHelp() || option.longestName().equals("--config")) {
                    continue;
                }
                String name = option.longestName();
                String sample = sample(option);
                List<String> flags = new ArrayList<>(required.get(command));
                int given = flags.indexOf(name);
                if (given >= 0) {
                    flags.subList(given, given + 2).clear();
                }
                Path conf = file(command + name + ".conf", name.substring(2) + " = " + sample);
                flags.addAll(List.of("--config", conf.toString()));
                Object after = parse(command, flags).findOption(name).getValue();

                assertNotEquals(option.getValue(), after, "'" + name.substring(2) + " = " + sample + "' changed nothing in "
                        + command);
                if (option.isMultiValue()) {
                    assertEquals(2, after instanceof Map<?, ?> m ? m.size() : ((Collection<?>) after).size(),
                            name + " takes a comma-separated list from a file");
                }
                checked++;
            }
        }
        assertTrue(checked > 60, "options checked: " + checked);
    }

    /** {@code command} of a new command tree, once {@code flags} are parsed. */
    private static CommandSpec parse(String command, List<String> flags) {
        CommandLine cl = P2psip.commandLine();
        List<String> args = new ArrayList<>(List.of(command));
        args.addAll(flags);
        cl.parseArgs(args.toArray(String[]::new));
        return cl.getSubcommands().get(command).getCommandSpec();
    }

    /** A value for {@code option} other than what it holds unless given; new kinds of option need one here. */
    private static String sample(OptionSpec option) {
        switch (option.longestName()) {
            case "--dht": return "kademlia";
            case "--auth": return "none";
            case "--policy": return "aor";
            case "--log-level": return "debug";
            case "--digest-algorithms": return "MD5";
            case "--advertise": return "10.0.0.9";
            case "--trusted-source": return "10.0.0.1, 10.0.0.2";
            case "--netns": return "10.50.1";
            default: break;
        }
        Class<?> type = option.type();
        if (option.arity().max() == 0) {
            return "true";
        }
        if (Map.class.isAssignableFrom(type)) {
            return "a=1, b=2";
        }
        if (List.class.isAssignableFrom(type) && option.auxiliaryTypes()[0] == HostPort.class) {
            return "10.0.0.7:5071, 10.0.0.8:5072";
        }
        if (List.class.isAssignableFrom(type) && option.auxiliaryTypes()[0] == String.class) {
            return "a.test, b.test";
        }
        if (type == HostPort.class) {
            return "10.0.0.7:5071";
        }
        if (type == int.class || type == long.class || type == Integer.class) {
            return "7";
        }
        if (type == Path.class) {
            return "/etc/p2psip/x.pem";
        }
        if (type == String.class) {
            return "sample";
        }
        fail("no sample value for " + option.longestName() + " of type " + type.getName() + ": add one here");
        return null;
    }
}
