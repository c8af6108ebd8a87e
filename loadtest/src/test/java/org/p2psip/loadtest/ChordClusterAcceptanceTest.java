package org.p2psip.loadtest;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.file.Path;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The digest acceptance of {@link ClusterAcceptanceTest} on a Chord ring:
 * three node processes keeping every credential and binding on two of
 * them, SIPp registering ten thousand provisioned users and calling through
 * the round-robin balancer.
 */
@Timeout(300)
class ChordClusterAcceptanceTest {

    private static final int AORS = 10_000;

    @TempDir
    static Path work;

    private static AuthenticatedCluster cluster;

    @BeforeAll
    static void startCluster() throws Exception {
        cluster = AuthenticatedCluster.start(work, "chord", 3, 2, "--probe-interval", "1000", "--probe-failures", "3");
        cluster.importUsers("ring", AORS);
        cluster.importUsers("callee", 1);
    }

    @AfterAll
    static void stopCluster() throws Exception {
        if (cluster != null) {
            cluster.close();
        }
    }

    @Test
    void sippRegistersTenThousandProvisionedUsersWithDigestAndCallsWithZeroFailures() throws Exception {
        Sipp.Result registers = cluster.registerRun("ring", AORS, AuthenticatedCluster.ACCEPTANCE_RATE);
        assertEquals(0, registers.exitCode(), registers + cluster.unexpected("ring"));
        assertEquals(AORS, registers.successful(), registers + cluster.unexpected("ring"));
        assertEquals(0, registers.failed(), registers + cluster.unexpected("ring"));

        Sipp.Result calls = cluster.callRun("calleeu0", 200, 50);
        assertEquals(0, calls.exitCode(), calls.toString());
        assertEquals(200, calls.successful(), calls.toString());
        assertEquals(0, calls.failed(), calls.toString());
    }
}
