package org.p2psip.loadtest;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.p2psip.core.testing.FreePorts;

/**
 * Five fresh node processes of an overlay backend (chord, so far) with
 * three copies of every binding take 3,000 REGISTERs of distinct AORs from SIPp at 500/s
 * through one node, starting 5 s after the last node listens, with none
 * failed. SIPp is used as written: one REGISTER per AOR and its own
 * retransmissions, no retries by the test. Freshly started JVMs on a small
 * machine are slow for their first seconds (compiling their hot code);
 * this pins that the node waits for its DHT long enough, and that a write
 * whose acknowledgement was lost is not then refused as out of order.
 */
@Timeout(300)
class OverlayRegisterLoadTest {

    private static final int AORS = 3000;

    @TempDir
    Path work;

    @ParameterizedTest
    // Kademlia belongs here too, and fails some runs yet: writes that find no coordinator within its
    // 10 s under this load (issue 16). It joins once that is fixed.
    @ValueSource(strings = {"chord"})
    void fiveFreshNodesWithThreeCopiesTakeEveryRegisterAt500PerSecond(String dht) throws Exception {
        try (OverlayNodes nodes = new OverlayNodes(dht, 3)) {
            OverlayNodes.Member entry = nodes.startAll(5);
            // The scenario, not a wait for a condition: load begins 5 s after the last node listens
            // (the bound is 10 s), while the JVMs are still compiling their hot code.
            TimeUnit.SECONDS.sleep(5);
            Path csv = work.resolve("aors.csv");
            List<String> rows = new ArrayList<>(List.of("SEQUENTIAL"));
            for (int i = 0; i < AORS; i++) {
                rows.add("load" + i + ";127.0.0.1:5999");
            }
            Files.write(csv, rows, StandardCharsets.ISO_8859_1);

            Sipp.Result r = Sipp.run(work, Duration.ofSeconds(120),
                    "-sf", Path.of("sipp", "register.xml").toAbsolutePath().toString(), "-inf", csv.toString(),
                    "-key", "regcseq", "1", "-m", Integer.toString(AORS), "-r", "500",
                    "-i", "127.0.0.1", "-p", Integer.toString(FreePorts.udpAndTcp()),
                    "-trace_err", "-error_file", work.resolve("errors.log").toString(), "127.0.0.1:" + entry.sip());

            String sipp = r + "\n" + Sipp.errorExcerpt(work.resolve("errors.log"), 20);
            assertEquals(AORS, r.successful(), () -> sipp + "\n" + nodes.nodeOutput());
            assertEquals(0, r.failed(), () -> sipp + "\n" + nodes.nodeOutput());
        }
    }
}
