package org.p2psip.dht.hazelcast;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.BufferedReader;
import java.io.File;
import java.io.IOException;
import java.io.InputStreamReader;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.TimeUnit;

import com.hazelcast.client.HazelcastClient;
import com.hazelcast.client.config.ClientConfig;
import com.hazelcast.config.Config;
import com.hazelcast.config.JoinConfig;
import com.hazelcast.core.Hazelcast;
import com.hazelcast.core.HazelcastInstance;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.p2psip.core.dht.Dht;
import org.p2psip.core.dht.DhtConfig;
import org.p2psip.core.dht.DhtException;
import org.p2psip.core.dht.VersionedValue;
import org.p2psip.core.net.HostPort;

/**
 * A hazelcast node started with cluster secret S in a process of its own
 * ({@link SecretMemberMain}) holds alice's binding; from this process,
 * Hazelcast members and clients that know only the cluster name, or a
 * wrong secret, or that copy what a capture of a member's join shows, try to
 * join or connect, and neither see nor change it, while a node with S joins
 * and reads it as a member and as a client.
 */
@Timeout(value = 240, unit = TimeUnit.SECONDS)
class HazelcastClusterSecretTest {

    private static final String SECRET = "S-hazelcast-test-secret";
    private static final int STRANGER_SECONDS = 6;

    private static Process node;
    private static HostPort overlay;
    private static HostPort clients;
    private static final StringBuffer OUTPUT = new StringBuffer();

    @BeforeAll
    static void startNodeProcess() throws Exception {
        int port = LoopbackMembers.freePort();
        overlay = new HostPort(LoopbackMembers.HOST, port);
        clients = new HostPort(LoopbackMembers.HOST, LoopbackMembers.freePort());
        List<String> command = new ArrayList<>();
        command.add(System.getProperty("java.home") + File.separator + "bin" + File.separator + "java");
        // The same JDK-internals flags surefire gives this JVM (see the pom), which Hazelcast wants.
        ManagementFactory.getRuntimeMXBean().getInputArguments().stream()
                .filter(a -> a.startsWith("--add-")).forEach(command::add);
        command.addAll(List.of("-cp", System.getProperty("java.class.path"), SecretMemberMain.class.getName(),
                Integer.toString(port), Integer.toString(clients.port())));
        ProcessBuilder builder = new ProcessBuilder(command).redirectErrorStream(true);
        builder.environment().put(SecretMemberMain.SECRET_ENV, SECRET);
        node = builder.start();
        CompletableFuture<Void> ready = new CompletableFuture<>();
        Thread reader = new Thread(() -> {
            try (BufferedReader out = new BufferedReader(new InputStreamReader(node.getInputStream(),
                    StandardCharsets.UTF_8))) {
                for (String line; (line = out.readLine()) != null; ) {
                    OUTPUT.append(line).append('\n');
                    if (line.equals("READY")) {
                        ready.complete(null);
                    }
                }
            } catch (IOException e) {
                // the process ended
            }
            ready.completeExceptionally(new AssertionError("the node process ended before READY:\n" + OUTPUT));
        }, "secret-member-output");
        reader.setDaemon(true);
        reader.start();
        ready.get(90, TimeUnit.SECONDS);
    }

    @AfterAll
    static void stopNodeProcess() throws Exception {
        if (node == null) {
            return;
        }
        node.getOutputStream().close();
        if (!node.waitFor(30, TimeUnit.SECONDS)) {
            node.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
        }
    }

    private static DhtConfig config(Map<String, String> options) {
        return config(LoopbackMembers.freePort(), options);
    }

    private static DhtConfig config(int overlayPort, Map<String, String> options) {
        // Members join through the overlay port; clients connect to the port the node opened for them.
        List<HostPort> bootstrap = "true".equals(options.get("client")) ? List.of(clients) : List.of(overlay);
        return new DhtConfig(new HostPort(LoopbackMembers.HOST, LoopbackMembers.freePort()),
                Optional.of(new HostPort(LoopbackMembers.HOST, overlayPort)), bootstrap, 1,
                Clock.systemUTC(), options);
    }

    private static Optional<VersionedValue> aliceAsSeenBy(Dht dht) {
        return dht.get(SecretMemberMain.KEY).orTimeout(20, TimeUnit.SECONDS).join();
    }

    /** What a holder of S reads now, as a client (which leaves the member's data where it is). */
    private static void assertAliceIntact() {
        try (Dht client = LoopbackMembers.await(new HazelcastDhtProvider().start(config(Map.of(
                "overlay-secret", SECRET, "client", "true"))))) {
            VersionedValue alice = aliceAsSeenBy(client).orElseThrow(() -> new AssertionError("alice is gone"));
            assertArrayEquals(SecretMemberMain.VALUE.getBytes(StandardCharsets.UTF_8), alice.value());
        }
    }

    private static DhtException startFailure(Map<String, String> options) {
        CompletionException e = assertThrows(CompletionException.class,
                () -> new HazelcastDhtProvider().start(config(options)).orTimeout(60, TimeUnit.SECONDS).join());
        return (DhtException) e.getCause();
    }

    @Test
    void memberKnowingOnlyTheDefaultClusterNameIsNotJoinedAndChangesNothing() {
        HazelcastInstance instance = Hazelcast.newHazelcastInstance(strangerMember(
                HazelcastOptions.DEFAULT_CLUSTER_NAME, LoopbackMembers.freePort()));
        try {
            assertEquals(1, instance.getCluster().getMembers().size(), "the stranger is alone in its own cluster");
            assertTrue(instance.getMap(HazelcastDht.MAP_NAME).isEmpty(), "and sees no binding");
            instance.getMap(HazelcastDht.MAP_NAME).remove(SecretMemberMain.KEY);
        } finally {
            instance.getLifecycleService().terminate();
        }
        assertAliceIntact();
    }

    @Test
    void clientKnowingOnlyTheDefaultClusterNameCannotConnect() {
        assertThrows(IllegalStateException.class,
                () -> HazelcastClient.newHazelcastClient(strangerClient(HazelcastOptions.DEFAULT_CLUSTER_NAME,
                        clients)).shutdown());
        assertAliceIntact();
    }

    /**
     * What a watcher of the overlay network learns while a member with S
     * joins: the cluster name and that member's join proof cross the wire in
     * clear (the secret does not). A Hazelcast client presenting that name
     * to the overlay port, and a member presenting the name and the copied
     * proof from an address of its own, both stay out; the node logs the
     * member it refused.
     */
    @Test
    void whatACaptureOfAMemberJoinShowsAdmitsNoClientAndNoOtherMember() throws Exception {
        String clusterName = HazelcastOptions.parse(Map.of("overlay-secret", SECRET)).hazelcastClusterName();
        int joinerPort = LoopbackMembers.freePort();
        byte[] captured;
        try (LoopbackCapture capture = LoopbackCapture.start(overlay.port())) {
            try (Dht member = LoopbackMembers.await(new HazelcastDhtProvider().start(config(joinerPort, Map.of(
                    "overlay-secret", SECRET, "start-timeout-seconds", "30"))))) {
                assertEquals(2, ((HazelcastDht) member).hazelcast().getCluster().getMembers().size());
            }
            captured = capture.stop();
        }
        String wire = new String(captured, StandardCharsets.ISO_8859_1);
        String proof = new MemberJoinProof(org.p2psip.core.overlay.OverlaySecret.of(SECRET),
                HazelcastOptions.DEFAULT_CLUSTER_NAME).proofFor(LoopbackMembers.HOST + ":" + joinerPort);
        assertTrue(wire.contains(clusterName), "the cluster name is on the wire, " + captured.length + " bytes");
        assertTrue(wire.contains(proof), "and so is the joiner's proof");
        assertFalse(wire.contains(SECRET), "the secret is not");

        assertThrows(IllegalStateException.class,
                () -> HazelcastClient.newHazelcastClient(strangerClient(clusterName, overlay)).shutdown());

        int strangerPort = LoopbackMembers.freePort();
        Config stranger = strangerMember(clusterName, strangerPort);
        stranger.getMemberAttributeConfig().setAttribute(MemberJoinProof.ATTRIBUTE, proof);
        HazelcastInstance instance = null;
        try {
            instance = Hazelcast.newHazelcastInstance(stranger);
            assertEquals(1, instance.getCluster().getMembers().size(), "the copier is alone in its own cluster");
            assertTrue(instance.getMap(HazelcastDht.MAP_NAME).isEmpty(), "and sees no binding");
        } catch (IllegalStateException refused) {
            // Told by the master why it may not join, Hazelcast may stop the copier instead.
        } finally {
            if (instance != null) {
                instance.getLifecycleService().terminate();
            }
        }
        assertTrue(OUTPUT.toString().contains("refused hazelcast member " + LoopbackMembers.HOST + ":" + strangerPort),
                OUTPUT::toString);
        assertAliceIntact();
    }

    private static ClientConfig strangerClient(String clusterName, HostPort to) {
        ClientConfig stranger = new ClientConfig();
        stranger.setClusterName(clusterName);
        stranger.getNetworkConfig().setAddresses(List.of(to.toString()));
        stranger.getConnectionStrategyConfig().getConnectionRetryConfig()
                .setClusterConnectTimeoutMillis(TimeUnit.SECONDS.toMillis(STRANGER_SECONDS));
        stranger.setProperty("hazelcast.phone.home.enabled", "false");
        return stranger;
    }

    private static Config strangerMember(String clusterName, int port) {
        Config stranger = new Config();
        stranger.setClusterName(clusterName);
        stranger.getJetConfig().setEnabled(false);
        stranger.getNetworkConfig().setPort(port).setPortAutoIncrement(false);
        JoinConfig join = stranger.getNetworkConfig().getJoin();
        join.getMulticastConfig().setEnabled(false);
        join.getAutoDetectionConfig().setEnabled(false);
        join.getTcpIpConfig().setEnabled(true).setMembers(List.of(overlay.toString()));
        stranger.setProperty("hazelcast.local.localAddress", LoopbackMembers.HOST);
        stranger.setProperty("hazelcast.max.join.seconds", Integer.toString(STRANGER_SECONDS));
        stranger.setProperty("hazelcast.wait.seconds.before.join", "0");
        stranger.setProperty("hazelcast.phone.home.enabled", "false");
        return stranger;
    }

    @Test
    void nodeWithAWrongSecretJoinsNeitherAsMemberNorAsClient() {
        String timeout = Integer.toString(STRANGER_SECONDS + 4);
        DhtException member = startFailure(Map.of("overlay-secret", "not-S", "start-timeout-seconds", timeout));
        assertTrue(member.getMessage().contains("could not join") || member.getMessage().contains("did not start"),
                member.getMessage());
        DhtException client = startFailure(Map.of("overlay-secret", "not-S", "client", "true",
                "start-timeout-seconds", timeout));
        assertTrue(client.getMessage().contains("could not connect") || client.getMessage().contains("did not start"),
                client.getMessage());
        DhtException noSecret = startFailure(Map.of("client", "true", "start-timeout-seconds", timeout));
        assertTrue(noSecret.getMessage().contains("could not connect")
                || noSecret.getMessage().contains("did not start"), noSecret.getMessage());
        assertAliceIntact();
    }

    @Test
    void nodeWithTheSecretJoinsAsMemberAndReadsTheBinding() {
        try (Dht member = LoopbackMembers.await(new HazelcastDhtProvider().start(config(Map.of(
                "overlay-secret", SECRET, "start-timeout-seconds", "30"))))) {
            assertEquals(2, ((HazelcastDht) member).hazelcast().getCluster().getMembers().size());
            VersionedValue alice = aliceAsSeenBy(member).orElseThrow(() -> new AssertionError("alice not found"));
            assertArrayEquals(SecretMemberMain.VALUE.getBytes(StandardCharsets.UTF_8), alice.value());
        }
        assertAliceIntact();
    }
}
