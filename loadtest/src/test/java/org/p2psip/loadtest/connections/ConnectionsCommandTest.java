package org.p2psip.loadtest.connections;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.InetAddress;
import java.util.List;

import org.junit.jupiter.api.Test;

import picocli.CommandLine;

class ConnectionsCommandTest {

    private record Result(int code, String out, String err) {
    }

    private static Result run(String... args) {
        CommandLine cl = ConnectionsCommand.commandLine();
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        cl.setOut(new PrintWriter(out));
        cl.setErr(new PrintWriter(err));
        int code = cl.execute(args);
        return new Result(code, out.toString(), err.toString());
    }

    @Test
    void theWholeCommandReportsWhatTheTargetDid() throws Exception {
        try (ClosingServer server = new ClosingServer(300, 0)) {
            Result r = run("--target", "127.0.0.1:" + server.address().getPort(), "--count", "4",
                    "--sources", "127.0.0.10-127.0.0.11", "--rate", "200", "--watch", "5", "--refused-within", "100",
                    "--pid", Long.toString(ProcessHandle.current().pid()));
            assertEquals(0, r.code(), r.err());
            assertTrue(r.out().contains("opened:     4 of 4"), r.out());
            assertTrue(r.out().contains("closed:     4 by the target later"), r.out());
            assertTrue(r.out().contains("still open: 0"), r.out());
            assertTrue(r.out().contains("target RSS: "), r.out());
        }
    }

    @Test
    void aTargetOffLoopbackIsRefusedWithExitCode2() {
        Result r = run("--target", "192.0.2.1:5060", "--count", "1");
        assertEquals(2, r.code());
        assertTrue(r.err().contains("not a loopback address"), r.err());
    }

    @Test
    void badArgumentsAreRefusedWithExitCode2() {
        String t = "127.0.0.1:5060";
        List<String[]> bad = List.of(
                new String[] {"--target", t, "--count", "0"},
                new String[] {"--target", t, "--count", "19001"},
                new String[] {"--target", t, "--register-rate", "-1"},
                new String[] {"--target", t, "--register-rate", "10", "--register-seconds", "0"},
                new String[] {"--target", t, "--register-rate", "10", "--register-seconds", "601"},
                new String[] {"--target", t, "--register-rate", "10", "--slowloris"},
                new String[] {"--target", t, "--register-rate", "10", "--domain", "a b"},
                new String[] {"--target", t, "--watch", "0"},
                new String[] {"--target", t, "--watch", "901"},
                new String[] {"--target", t, "--rate", "0"},
                new String[] {"--target", t, "--count", "18000", "--rate", "10"},
                new String[] {"--target", t, "--sources", "127.0.0.40-127.0.0.10"},
                new String[] {"--target", t, "--sources", "10.0.0.1"},
                new String[] {"--target", t, "--sources", "127.0.0.300"},
                new String[] {"--target", t, "--sources", "127.0.0.10", "--probe-source", "127.0.0.10"},
                new String[] {"--target", t, "--probe-source", "192.0.2.1"},
                new String[] {"--target", t, "--connect-timeout", "0"},
                new String[] {"--target", t, "--refused-within", "0"},
                new String[] {"--target", "127.0.0.1"},
                new String[] {"--count", "1"});
        for (String[] args : bad) {
            assertEquals(2, run(args).code(), String.join(" ", args));
        }
    }

    @Test
    void sourcesAreRangesAndListsOfLoopbackAddresses() throws Exception {
        List<InetAddress> r = SourceAddresses.parse("127.0.0.10-127.0.0.40");
        assertEquals(31, r.size());
        assertEquals("127.0.0.10", r.get(0).getHostAddress());
        assertEquals("127.0.0.40", r.get(30).getHostAddress());
        assertEquals(List.of("127.0.0.255", "127.0.1.0", "127.0.1.1", "127.0.0.9"),
                SourceAddresses.parse("127.0.0.255-127.0.1.1, 127.0.0.9,127.0.1.0").stream()
                        .map(InetAddress::getHostAddress).toList());
        assertEquals(1, SourceAddresses.parse("::1").size());
        assertThrows(IllegalArgumentException.class, () -> SourceAddresses.parse(""));
        assertThrows(IllegalArgumentException.class, () -> SourceAddresses.parse("127.0.0.1-127.0.255.255"));
        assertThrows(IllegalArgumentException.class, () -> SourceAddresses.parse("localhost"));
        assertThrows(IllegalArgumentException.class, () -> SourceAddresses.parse("128.0.0.1"));
    }
}
