package org.p2psip.loadtest;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.p2psip.core.testing.FreePorts;

/** {@code p2psip lb} as an operator runs it: its start line, its 503 with no node up, its one-line errors. */
@Timeout(60)
class LbProcessTest {

    @Test
    void startsSaysWhereAndAnswers503WhileNoNodeAnswersThenRefusesABusyPort() throws Exception {
        int lbPort = FreePorts.udpAndTcp();
        int deadNode = FreePorts.udpAndTcp();
        try (NodeProcess lb = NodeProcess.start("lb", "--sip", "127.0.0.1:" + lbPort,
                "--nodes", "127.0.0.1:" + deadNode, "--policy", "aor", "--probe-interval", "100", "--probe-failures", "1")) {
            lb.awaitOutput("p2psip lb listening on sip:127.0.0.1:" + lbPort + " (udp, tcp) balancing [127.0.0.1:"
                    + deadNode + "] policy=aor", Duration.ofSeconds(30));

            String status = "none";
            Instant deadline = Instant.now().plusSeconds(10);
            try (SipUdpClient client = new SipUdpClient()) {
                while (!status.equals("503") && Instant.now().isBefore(deadline)) {
                    String register = client.register(lbPort, "nobody", "sip:nobody@127.0.0.1:9", "lb-" + UUID.randomUUID(), 1, 60);
                    String answer = client.exchange(List.of(Map.entry(lbPort, register)), Duration.ofSeconds(1))
                            .get(SipUdpClient.callIdOf(register));
                    status = answer == null ? "none" : Integer.toString(SipUdpClient.statusOf(answer));
                    assertTrue(answer == null || answer.contains("\r\nRetry-After: "), answer);
                    TimeUnit.MILLISECONDS.sleep(50);
                }
            }
            assertEquals("503", status, "no node answers its probes, so the balancer answers 503 itself");

            try (NodeProcess second = NodeProcess.start("lb", "--sip", "127.0.0.1:" + lbPort, "--nodes", "127.0.0.1:" + deadNode)) {
                assertEquals(1, second.awaitExit(Duration.ofSeconds(30)));
                List<String> lines = second.output().stream().filter(l -> !l.isBlank()).toList();
                assertEquals(1, lines.size(), String.join("\n", lines));
                assertTrue(lines.get(0).startsWith("p2psip lb: ") && lines.get(0).contains("in use"), lines.get(0));
            }
        }
    }
}
