package org.p2psip.servlet.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;

import org.junit.jupiter.api.Test;
import org.p2psip.servlet.cli.ConfigFile.Setting;

/** The syntax of a {@code --config} file, apart from what any command makes of its keys. */
class ConfigFileTest {

    @Test
    void settingsComeInFileOrderWithTheirLineNumbers() throws Exception {
        ConfigFile file = ConfigFile.parse("sip = 127.0.0.1:5060\ndomain = a.test\ndomain = b.test\n", "node.conf");

        assertEquals(List.of(new Setting("sip", "127.0.0.1:5060", 1), new Setting("domain", "a.test", 2),
                new Setting("domain", "b.test", 3)), file.settings());
        assertEquals("node.conf:3", file.where(file.settings().get(2)));
    }

    @Test
    void blankLinesAndCommentLinesAreSkippedButCounted() throws Exception {
        ConfigFile file = ConfigFile.parse("# the node\n\n   \n  # indented comment\nreplicas = 2\n", "n.conf");

        assertEquals(List.of(new Setting("replicas", "2", 5)), file.settings());
    }

    @Test
    void spacesAroundTheKeyAndValueAreOptionalAndTrimmed() throws Exception {
        ConfigFile file = ConfigFile.parse("sip=127.0.0.1:5060\n  replicas   =\t2  \n\tdht =chord", "n.conf");

        assertEquals(List.of(new Setting("sip", "127.0.0.1:5060", 1), new Setting("replicas", "2", 2),
                new Setting("dht", "chord", 3)), file.settings());
    }

    @Test
    void theValueIsTheRestOfTheLineAfterTheFirstEqualsSignHashesIncluded() throws Exception {
        ConfigFile file = ConfigFile.parse("dht-option = hazelcast.max.no.heartbeat.seconds=10\n"
                + "cluster-secret = a#b = c # not a comment\n", "n.conf");

        assertEquals("hazelcast.max.no.heartbeat.seconds=10", file.settings().get(0).value());
        assertEquals("a#b = c # not a comment", file.settings().get(1).value());
    }

    @Test
    void crlfAndCrLineEndingsAndAByteOrderMarkAreRead() throws Exception {
        ConfigFile file = ConfigFile.parse("\uFEFFsip = 127.0.0.1:5060\r\n# c\r\nreplicas = 2\rdht = chord\r\n",
                "n.conf");

        assertEquals(List.of(new Setting("sip", "127.0.0.1:5060", 1), new Setting("replicas", "2", 3),
                new Setting("dht", "chord", 4)), file.settings());
    }

    @Test
    void anEmptyFileHasNoSettings() throws Exception {
        assertEquals(List.of(), ConfigFile.parse("", "n.conf").settings());
        assertEquals(List.of(), ConfigFile.parse("# only a comment\n\n", "n.conf").settings());
    }

    @Test
    void aLineWithoutAnEqualsSignNamesFileAndLineButNotTheLine() {
        ConfigFileException e = assertThrows(ConfigFileException.class,
                () -> ConfigFile.parse("sip = 127.0.0.1:5060\n\ns3cr3t-without-key\n", "/etc/p2psip/node.conf"));

        assertTrue(e.getMessage().startsWith("/etc/p2psip/node.conf:3: not a setting"), e.getMessage());
        assertTrue(!e.getMessage().contains("s3cr3t"), e.getMessage());
    }

    @Test
    void aMissingKeyOrValueIsRefusedWithItsLine() {
        ConfigFileException noKey = assertThrows(ConfigFileException.class,
                () -> ConfigFile.parse("# x\n = 2\n", "n.conf"));
        ConfigFileException noValue = assertThrows(ConfigFileException.class,
                () -> ConfigFile.parse("replicas =   \n", "n.conf"));

        assertEquals("n.conf:2: no key before '='", noKey.getMessage());
        assertEquals("n.conf:1: 'replicas' has no value after '='", noValue.getMessage());
    }

    @Test
    void aSettingIsValidatedWhereverItIsMade() {
        assertThrows(IllegalArgumentException.class, () -> new Setting("", "x", 1));
        assertThrows(IllegalArgumentException.class, () -> new Setting("a=b", "x", 1));
        assertThrows(IllegalArgumentException.class, () -> new Setting(" sip", "x", 1));
        assertThrows(IllegalArgumentException.class, () -> new Setting("sip", "", 1));
        assertThrows(IllegalArgumentException.class, () -> new Setting("sip", "x ", 1));
        assertThrows(IllegalArgumentException.class, () -> new Setting("sip", "x", 0));
    }
}
