package org.p2psip.core.dht;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.p2psip.core.net.HostPort;
import org.p2psip.core.store.DataDir;
import org.p2psip.core.store.FlushPolicy;
import org.p2psip.core.testing.Eventually;
import org.p2psip.core.testing.FreePorts;

/**
 * What a backend promises with a data directory ({@code --data-dir}):
 * stop every node of an overlay, start them all again on the same
 * directories, and what was written before is served again, at versions a
 * conditional write can name; what expired meanwhile and what was removed
 * is not. A backend subclasses this with a way to start its nodes that
 * gives node {@code i} the same directory (and, where placement depends on
 * it, the same address) each time.
 */
public abstract class DhtRestartContractTest {

    private static final Duration SETTLE = Duration.ofSeconds(60);
    private static final int VALUES = 60;

    @TempDir
    Path root;

    protected final ManualClock clock = new ManualClock(Instant.parse("2026-03-01T00:00:00Z"));
    private List<Dht> nodes = List.of();

    /**
     * Starts one overlay of {@code dirs.size()} nodes, node {@code i}
     * keeping its values in {@code dirs.get(i)}, expiry measured on
     * {@code clock}; returns once every node has started.
     */
    protected abstract List<Dht> start(List<DataDir> dirs, Clock clock) throws Exception;

    private final List<Integer> overlayPorts = new ArrayList<>();

    /**
     * Starts node after node through {@code provider}, each on the overlay
     * port it had the first time (a node's id comes from its address), the
     * first alone and the others joining it.
     */
    protected List<Dht> startOnFixedPorts(DhtProvider provider, List<DataDir> dirs, Clock clock, int replicas,
                                          Map<String, String> options) throws Exception {
        while (overlayPorts.size() < dirs.size()) {
            overlayPorts.add(FreePorts.udpAndTcp());
        }
        List<Dht> started = new ArrayList<>();
        for (int i = 0; i < dirs.size(); i++) {
            List<HostPort> bootstrap = i == 0 ? List.of() : List.of(new HostPort("127.0.0.1", overlayPorts.get(0)));
            DhtConfig config = new DhtConfig(new HostPort("127.0.0.1", 15_100 + i),
                    Optional.of(new HostPort("127.0.0.1", overlayPorts.get(i))), bootstrap, replicas, clock, options)
                    .withDataDir(dirs.get(i));
            started.add(provider.start(config).get(20, TimeUnit.SECONDS));
        }
        return started;
    }

    /** How many nodes the overlay has. */
    protected int size() {
        return 3;
    }

    @AfterEach
    void stopTheNodes() {
        stopAll();
    }

    private List<DataDir> dirs() {
        List<DataDir> dirs = new ArrayList<>();
        for (int i = 0; i < size(); i++) {
            dirs.add(new DataDir(root.resolve("node-" + i), new FlushPolicy(100, Duration.ofMillis(100))));
        }
        return dirs;
    }

    /** Newest first, as an operator stops them: the first node is the one the others joined through. */
    private void stopAll() {
        for (int i = nodes.size() - 1; i >= 0; i--) {
            nodes.get(i).close();
        }
        nodes = List.of();
    }

    @Test
    void valuesWrittenBeforeEveryNodeStoppedAreServedWhenTheyAllStartAgain() throws Exception {
        nodes = start(dirs(), clock);
        Map<String, byte[]> written = new LinkedHashMap<>();
        Instant expiry = clock.instant().plus(Duration.ofHours(1));
        for (int i = 0; i < VALUES; i++) {
            String key = "user" + i + "@example.com";
            byte[] value = ("binding " + i).getBytes(StandardCharsets.UTF_8);
            writeThroughAnyNode(key, Dht.ABSENT, value, expiry);
            written.put(key, value);
        }
        stopAll();

        nodes = start(dirs(), clock);

        Eventually.until(() -> written.entrySet().stream().allMatch(e -> servedByEveryNode(e.getKey(), e.getValue())),
                SETTLE, () -> "every value served again by every node; missing: " + missing(written));
    }

    @Test
    void aWriteAfterTheRestartNamesTheRestoredVersionAndGetsANewerOne() throws Exception {
        nodes = start(dirs(), clock);
        String key = "alice@example.com";
        Instant expiry = clock.instant().plus(Duration.ofHours(1));
        writeThroughAnyNode(key, Dht.ABSENT, bytes("before"), expiry);
        stopAll();

        nodes = start(dirs(), clock);
        Eventually.until(() -> servedByEveryNode(key, bytes("before")), SETTLE, "the value served again");
        VersionedValue restored = await(nodes.get(0).get(key)).orElseThrow();
        assertFalse(await(nodes.get(0).putIfVersion(key, Dht.ABSENT, bytes("blind"), expiry)),
                "the key is not absent after the restart");
        assertTrue(await(nodes.get(0).putIfVersion(key, restored.version(), bytes("after"), expiry)),
                "a write at the restored version takes effect");
        Eventually.until(() -> servedByEveryNode(key, bytes("after")), SETTLE, "the new value everywhere");
        assertTrue(await(nodes.get(0).get(key)).orElseThrow().version() > restored.version());
    }

    @Test
    void whatExpiredWhileTheNodesWereDownOrWasRemovedBeforeIsNotServed() throws Exception {
        nodes = start(dirs(), clock);
        Instant soon = clock.instant().plus(Duration.ofMinutes(1));
        Instant later = clock.instant().plus(Duration.ofHours(1));
        writeThroughAnyNode("short@example.com", Dht.ABSENT, bytes("short"), soon);
        writeThroughAnyNode("gone@example.com", Dht.ABSENT, bytes("gone"), later);
        writeThroughAnyNode("kept@example.com", Dht.ABSENT, bytes("kept"), later);
        long gone = await(nodes.get(0).get("gone@example.com")).orElseThrow().version();
        assertTrue(await(nodes.get(0).removeIfVersion("gone@example.com", gone)));
        stopAll();
        clock.advance(Duration.ofMinutes(2));

        nodes = start(dirs(), clock);

        Eventually.until(() -> servedByEveryNode("kept@example.com", bytes("kept")), SETTLE, "the kept value");
        for (Dht node : nodes) {
            assertTrue(await(node.get("short@example.com")).isEmpty(), "expired while down");
            assertTrue(await(node.get("gone@example.com")).isEmpty(), "removed before the stop");
        }
    }

    /** A first write through the nodes in turn: a node still settling into the overlay may refuse it. */
    private void writeThroughAnyNode(String key, long version, byte[] value, Instant expiry) {
        Eventually.until(() -> {
            for (Dht node : nodes) {
                try {
                    if (node.putIfVersion(key, version, value, expiry).get(10, TimeUnit.SECONDS)) {
                        return true;
                    }
                    Optional<VersionedValue> now = node.get(key).get(10, TimeUnit.SECONDS);
                    if (now.isPresent() && Arrays.equals(now.get().value(), value)) {
                        // An earlier attempt that timed out took effect.
                        return true;
                    }
                } catch (Exception e) {
                    // Not settled yet: the next node, or the next round.
                }
            }
            return false;
        }, SETTLE, "writing " + key);
    }

    private boolean servedByEveryNode(String key, byte[] value) {
        for (Dht node : nodes) {
            try {
                Optional<VersionedValue> v = node.get(key).get(10, TimeUnit.SECONDS);
                if (v.isEmpty() || !Arrays.equals(v.get().value(), value)) {
                    return false;
                }
            } catch (Exception e) {
                return false;
            }
        }
        return true;
    }

    private List<String> missing(Map<String, byte[]> written) {
        return written.entrySet().stream().filter(e -> !servedByEveryNode(e.getKey(), e.getValue()))
                .map(Map.Entry::getKey).limit(5).toList();
    }

    private static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    private static <T> T await(CompletableFuture<T> f) throws Exception {
        return f.get(30, TimeUnit.SECONDS);
    }
}
