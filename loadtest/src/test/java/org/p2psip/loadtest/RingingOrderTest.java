package org.p2psip.loadtest;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.file.Path;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * SIPp's uas answers every INVITE with 180 and, at once, 200. Through the
 * balancer and a 3-node cluster the caller must see the 180 before the
 * 200 on every call: {@code sipp/call-ringing.xml} fails a call whose 200
 * comes while its 180 is still awaited (RFC 3261 §17.2.1, responses of one
 * transaction pass on in order).
 */
@Timeout(300)
class RingingOrderTest {

    private static final int CALLS = 1000;

    @TempDir
    Path work;

    @Test
    void everyRingingReachesTheCallerBeforeItsAnswer() throws Exception {
        try (AuthenticatedCluster cluster = AuthenticatedCluster.start(work, "hazelcast", 3, 2,
                "--probe-interval", "1000", "--probe-failures", "3")) {
            cluster.importUsers("ring", 1);
            Sipp.Result calls = cluster.callRun("ringu0", CALLS, 50,
                    "-sf", Path.of("sipp", "call-ringing.xml").toAbsolutePath().toString());
            String why = calls + "\n" + Sipp.errorExcerpt(work.resolve("ringu0-call-errors.log"), 40);
            assertEquals(CALLS, calls.successful(), why);
            assertEquals(0, calls.failed(), why);
        }
    }
}
