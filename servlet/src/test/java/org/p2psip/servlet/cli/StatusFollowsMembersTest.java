package org.p2psip.servlet.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.p2psip.core.net.HostPort;
import org.p2psip.servlet.admin.AdminClient;
import org.p2psip.servlet.node.FrontNode;
import org.p2psip.servlet.testing.SharedStoreNodes;

/**
 * {@code status --cluster ONE} shows the whole cluster: each node names its
 * admin endpoint in the DHT, and status asks the one it was given for the
 * others. It once showed that one node as the cluster ("1 of 1 nodes
 * answered", a third of the key space).
 */
class StatusFollowsMembersTest {

    private static final String SECRET = "status-members-secret";

    @TempDir
    Path dir;

    private static FrontNode node(String store) throws Exception {
        return SharedStoreNodes.withAdmin(store, SECRET);
    }

    @Test
    void oneEndpointGivenShowsEveryNodeOfTheCluster() throws Exception {
        String store = "status-members-" + UUID.randomUUID();
        try (FrontNode one = node(store); FrontNode two = node(store)) {
            HostPort first = one.adminAddress().orElseThrow();
            HostPort second = two.adminAddress().orElseThrow();
            AdminClient client = new AdminClient(List.of(first), SECRET.getBytes(StandardCharsets.UTF_8),
                    Clock.systemUTC());
            // Each node writes its entry as its endpoint starts, off the caller's thread.
            Instant deadline = Instant.now().plus(Duration.ofSeconds(20));
            while (client.clusterEndpoints().size() < 2 && Instant.now().isBefore(deadline)) {
                TimeUnit.MILLISECONDS.sleep(50);
            }
            assertEquals(List.of(first, second), client.clusterEndpoints());

            Path secret = dir.resolve("secret");
            Files.writeString(secret, SECRET + "\n", StandardCharsets.UTF_8);
            LbCommandTest.Run status = LbCommandTest.run("status", "--interval", "100", "--cluster", first.toString(),
                    "--cluster-secret-file", secret.toString());

            assertEquals(0, status.exit(), status.err());
            assertTrue(status.out().contains("2 of 2 nodes answered"), status.out());
            assertTrue(status.out().lines().anyMatch(l -> l.startsWith(second.toString())
                    && l.contains(two.sipAddress().toString())), status.out());
        }
    }
}
