package org.p2psip.loadtest.jmh;

import java.io.IOException;
import java.net.DatagramSocket;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;
import org.p2psip.core.dht.Dht;
import org.p2psip.core.dht.DhtBackends;
import org.p2psip.core.dht.DhtConfig;
import org.p2psip.core.dht.VersionedValue;
import org.p2psip.core.net.HostPort;

/**
 * Store and fetch latency per backend, measured from one node: the
 * in-memory-databases paper's table (local 0.012 ms, Memcached 0.028 ms,
 * Redis 0.048 ms per store) for our backends.
 *
 * <p>{@code where} picks the backend and where the key lives:
 * {@code local} is the single-process backend; {@code hazelcast-owner} and
 * {@code chord-owner} use keys the measuring node owns itself (no network
 * hop), {@code hazelcast-remote} and {@code chord-remote} keys the other
 * member of a two-member cluster in this JVM owns (one round trip over
 * 127.0.0.1 TCP). Replication is off (one copy) so the figures are the
 * bare hop, not the backup write.
 *
 * <p>A store is what the registrar does: a conditional write at the version
 * it read. The read happens in the per-call setup, outside the measured
 * time.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 1, jvmArgsAppend = {"--add-modules", "java.se",
        "--add-exports", "java.base/jdk.internal.ref=ALL-UNNAMED",
        "--add-opens", "java.base/java.lang=ALL-UNNAMED",
        "--add-opens", "java.base/sun.nio.ch=ALL-UNNAMED",
        "--add-opens", "java.management/sun.management=ALL-UNNAMED",
        "--add-opens", "jdk.management/com.sun.management.internal=ALL-UNNAMED"})
public class DhtLatencyBench {

    private static final int KEYS = 256;
    private static final byte[] VALUE = ("<sip:alice@192.0.2.10:5060>;expires=3600;q=0.5 callid=bench-1@192.0.2.10 "
            + "cseq=1").getBytes(StandardCharsets.UTF_8);

    /** The nodes, started once per fork, and the keys placed where {@code where} says. */
    @State(Scope.Benchmark)
    public static class Cluster {

        @Param({"local", "hazelcast-owner", "hazelcast-remote", "chord-owner", "chord-remote"})
        public String where;

        final List<Dht> nodes = new ArrayList<>();
        Dht measured;
        String[] keys;

        @Setup(Level.Trial)
        public void start() throws Exception {
            String backend = where.contains("-") ? where.substring(0, where.indexOf('-')) : where;
            boolean remote = where.endsWith("-remote");
            Clock clock = Clock.systemUTC();
            if ("local".equals(backend)) {
                measured = DhtBackends.byName("local")
                        .start(DhtConfig.standalone(new HostPort("127.0.0.1", 5060), clock)).get(30, TimeUnit.SECONDS);
                nodes.add(measured);
            } else {
                Map<String, String> options = "chord".equals(backend)
                        ? Map.of("overlay-secret", "jmh-bench-secret") : Map.of();
                HostPort seed = new HostPort("127.0.0.1", freePort());
                nodes.add(DhtBackends.byName(backend).start(new DhtConfig(new HostPort("127.0.0.1", freePort()),
                        Optional.of(seed), List.of(), 1, clock, options)).get(60, TimeUnit.SECONDS));
                nodes.add(DhtBackends.byName(backend).start(new DhtConfig(new HostPort("127.0.0.1", freePort()),
                        Optional.of(new HostPort("127.0.0.1", freePort())), List.of(seed), 1, clock, options))
                        .get(60, TimeUnit.SECONDS));
                measured = nodes.get(0);
            }
            if (nodes.size() > 1) {
                settle();
            }
            keys = keysOwnedBy(remote ? nodes.get(nodes.size() - 1) : measured);
            Instant expiry = Instant.now().plusSeconds(3600);
            for (String k : keys) {
                if (!measured.putIfVersion(k, Dht.ABSENT, VALUE, expiry).get(10, TimeUnit.SECONDS)) {
                    throw new IllegalStateException("could not seed " + k);
                }
            }
        }

        /**
         * Waits until the second member owns a steady share of probe keys, then
         * a little longer: right after a join the first member still owns
         * everything, and keys picked then would move mid-measurement.
         */
        private void settle() throws Exception {
            String second = nodes.get(1).self().id();
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
            int before = -1;
            while (true) {
                int owned = 0;
                for (int i = 0; i < 200; i++) {
                    if (measured.placement("probe" + i).get(10, TimeUnit.SECONDS).owner().id().equals(second)) {
                        owned++;
                    }
                }
                // Both own some keys, and the split held still for one poll (a Chord split is as uneven as
                // its two random ids, so no fair share is expected).
                if (owned > 0 && owned < 200 && owned == before) {
                    break;
                }
                before = owned;
                if (System.nanoTime() > deadline) {
                    throw new IllegalStateException("the second member owns " + owned + " of 200 probe keys");
                }
                TimeUnit.MILLISECONDS.sleep(200);
            }
            TimeUnit.SECONDS.sleep(3);
        }

        /**
         * {@link #KEYS} keys whose owner is {@code owner}, as the measuring
         * node places them; polls because a member that has just joined may
         * not own its share yet.
         */
        private String[] keysOwnedBy(Dht owner) throws Exception {
            String self = owner.self().id();
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
            List<String> found = new ArrayList<>();
            int candidate = 0;
            while (found.size() < KEYS) {
                if (System.nanoTime() > deadline) {
                    throw new IllegalStateException("found only " + found.size() + " keys owned by " + self);
                }
                String key = "bench.example.com/user" + candidate++ + "@" + where;
                if (measured.placement(key).get(10, TimeUnit.SECONDS).owner().id().equals(self)) {
                    found.add(key);
                }
                if (candidate % 10_000 == 0) {
                    found.clear();
                    TimeUnit.MILLISECONDS.sleep(200);
                }
            }
            return found.toArray(String[]::new);
        }

        @TearDown(Level.Trial)
        public void stop() {
            for (int i = nodes.size() - 1; i >= 0; i--) {
                nodes.get(i).close();
            }
        }
    }

    /** The key and version of the next store, read as the registrar reads before it writes. */
    @State(Scope.Thread)
    public static class StoreTarget {
        int next;
        String key;
        long version;

        @Setup(Level.Invocation)
        public void read(Cluster c) throws Exception {
            key = c.keys[next++ & (KEYS - 1)];
            version = c.measured.get(key).get(10, TimeUnit.SECONDS).map(VersionedValue::version).orElse(Dht.ABSENT);
        }
    }

    /** Which key the next fetch reads. */
    @State(Scope.Thread)
    public static class FetchCursor {
        int next;
    }

    @Benchmark
    public boolean store(Cluster c, StoreTarget t) throws Exception {
        return c.measured.putIfVersion(t.key, t.version, VALUE, Instant.now().plusSeconds(3600))
                .get(10, TimeUnit.SECONDS);
    }

    @Benchmark
    public Optional<VersionedValue> fetch(Cluster c, FetchCursor f) throws Exception {
        return c.measured.get(c.keys[f.next++ & (KEYS - 1)]).get(10, TimeUnit.SECONDS);
    }

    private static int freePort() throws IOException {
        InetAddress lo = InetAddress.getLoopbackAddress();
        for (int attempt = 0; attempt < 50; attempt++) {
            try (ServerSocket s = new ServerSocket(0, 1, lo)) {
                int port = s.getLocalPort();
                try (DatagramSocket udp = new DatagramSocket(new InetSocketAddress(lo, port))) {
                    return port;
                } catch (IOException busy) {
                    // another
                }
            }
        }
        throw new IOException("no free port on 127.0.0.1");
    }
}
