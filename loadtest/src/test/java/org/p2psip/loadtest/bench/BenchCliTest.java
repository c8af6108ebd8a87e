package org.p2psip.loadtest.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.InetAddress;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.p2psip.servlet.cli.P2psip;

import picocli.CommandLine;

/** {@code p2psip bench} as users meet it: found through ServiceLoader, one-line errors, summary and JSON. */
@Timeout(60)
class BenchCliTest {

    private final StringWriter out = new StringWriter();
    private final StringWriter err = new StringWriter();

    private int run(String... args) {
        CommandLine cl = P2psip.commandLine();
        cl.setOut(new PrintWriter(out));
        cl.setErr(new PrintWriter(err));
        return cl.execute(args);
    }

    @Test
    void benchJoinsTheCommandLineWithItsScenarios() {
        assertEquals(0, run("bench", "--help"));
        for (String word : new String[] {"register", "reregister", "call", "message", "responder"}) {
            assertTrue(out.toString().contains(word), out.toString());
        }
    }

    @Test
    void badFlagsAreOneLineErrorsWithExitCodeTwo() {
        assertEquals(2, run("bench", "register", "--target", "127.0.0.1:5060", "--rate", "0"));
        assertEquals(1, err.toString().strip().lines().count(), err.toString());
        assertTrue(err.toString().startsWith("p2psip bench register: --rate must be more than 0"), err.toString());

        err.getBuffer().setLength(0);
        assertEquals(2, run("bench", "register", "--target", "127.0.0.1:5060", "--rate", "10", "--max-rate"));
        assertTrue(err.toString().contains("exclude each other"), err.toString());

        err.getBuffer().setLength(0);
        assertEquals(2, run("bench", "call", "--target", "127.0.0.1:5060", "--transport", "sctp"));
        assertEquals(1, err.toString().strip().lines().count(), err.toString());

        err.getBuffer().setLength(0);
        assertEquals(2, run("bench", "message"));
        assertTrue(err.toString().contains("--target"), err.toString());
    }

    @Test
    void registerAgainstTheTrivialResponderPrintsOneJsonObject() {
        try (BuiltInUas responder = BuiltInUas.start(InetAddress.getLoopbackAddress(), 0, 1)) {
            int code = run("bench", "register", "--target", responder.hostPort(), "--rate", "2000", "--count", "600",
                    "--json");
            assertEquals(0, code, err.toString());
            String json = out.toString().strip();
            assertEquals(1, json.lines().count(), json);
            assertTrue(json.startsWith("{\"scenario\":\"register\",\"transport\":\"udp\""), json);
            assertTrue(json.contains("\"attempted\":600,\"succeeded\":600,\"failed\":0"), json);
            assertTrue(json.contains("\"latency_ms\":{\"p50\":"), json);
        }
    }

    @Test
    void theSummaryIsOneLineAndFailuresGiveExitCodeThree() {
        // Nothing listens on the target: every request times out, quickly with a short T1.
        try (BuiltInUas responder = BuiltInUas.start(InetAddress.getLoopbackAddress(), 0, 1)) {
            String target = "127.0.0.1:" + responder.port();
            responder.close();
            int code = run("bench", "register", "--target", target, "--rate", "100", "--count", "5", "--t1-ms", "10");
            assertEquals(3, code, err.toString());
            String line = out.toString().strip();
            assertEquals(1, line.lines().count(), line);
            assertTrue(line.contains("0/5 ok") && line.contains("timeout x5"), line);
        }
    }
}
