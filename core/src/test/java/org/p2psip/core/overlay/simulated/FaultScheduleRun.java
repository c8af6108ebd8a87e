package org.p2psip.core.overlay.simulated;

import java.math.BigInteger;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.concurrent.CompletableFuture;

import org.p2psip.core.dht.Dht;
import org.p2psip.core.dht.VersionedValue;
import org.p2psip.core.net.HostPort;
import org.p2psip.core.overlay.OverlayRuntime;

/**
 * Runs one {@link FaultSchedule} against a backend on a simulated network
 * and checks what its writers were told against what the overlay holds.
 *
 * <p>The workload is a list append: each writer reads a key, appends its
 * own unique write id to the list it found, and writes it back with the
 * version it read. A write acknowledged {@code true} is in every later
 * list unless a later write was applied on top of an older version — a lost
 * update — or the key's copies were lost. After the faults, the network
 * heals, the writers stop and the overlay settles; then every key is read
 * once through a live node, and every acknowledged id must be in its list,
 * with no id twice (a write applied twice). Writes that failed or timed out
 * may or may not be there.
 */
public final class FaultScheduleRun {

    private static final Duration JOIN_BOUND = Duration.ofSeconds(60);
    private static final Duration SETTLE = Duration.ofSeconds(5);
    private static final Duration AFTER_FAULTS = Duration.ofSeconds(10);
    private static final Duration FINAL_SETTLE = Duration.ofSeconds(20);
    private static final Duration OPERATION_BOUND = Duration.ofSeconds(60);
    private static final int MIN_LIVE_SPARE = 2;
    /** {@code -Dfaults.trace=KEY} prints every operation on KEY, to follow a failing seed. */
    private static final String TRACE = System.getProperty("faults.trace", "");

    /** What a run found: counts, and the violations (none means it held). */
    public record Outcome(long seed, String backend, int nodes, int acknowledged, int refused, int failed,
                          long messages, long steps, List<String> violations, List<String> events) {

        public boolean held() {
            return violations.isEmpty();
        }

        @Override
        public String toString() {
            return backend + " seed " + seed + ": " + nodes + " nodes, " + acknowledged + " acknowledged, " + refused
                    + " refused, " + failed + " failed, " + messages + " messages, " + steps + " events; " + (held() ? "held" : violations.size() + " violations: "
                    + String.join("; ", violations.subList(0, Math.min(5, violations.size())))
                    + "\n  events: " + String.join("\n          ", events));
        }
    }

    private final FaultSchedule schedule;
    private final SimulatedBackend backend;
    private final int replicas;
    private final VirtualTime time = new VirtualTime();
    private final SimulatedOverlayNetwork network;
    private final SplittableRandom random;
    private final List<Member> members = new ArrayList<>();
    private final List<String> events = new ArrayList<>();
    private final List<String> violations = new ArrayList<>();
    private final Map<String, Set<Long>> acknowledged = new HashMap<>();
    /** For each acknowledged write id, when and through which node, for the report. */
    private final Map<Long, String> acknowledgedAt = new HashMap<>();
    private int refused;
    private int failed;
    private boolean stopWriters;
    private final List<Writer> writers = new ArrayList<>();

    private static final class Member {
        final int index;
        final HostPort address;
        final VirtualExecutor owner;
        SimulatedBackend.Node node;
        boolean alive = true;
        boolean joined;

        Member(int index, HostPort address, VirtualExecutor owner) {
            this.index = index;
            this.address = address;
            this.owner = owner;
        }

        String id() {
            return node.dht().self().id();
        }
    }

    private FaultScheduleRun(FaultSchedule schedule, SimulatedBackend backend, int replicas) {
        this.schedule = schedule;
        this.backend = backend;
        this.replicas = replicas;
        this.network = new SimulatedOverlayNetwork(time, schedule.seed() * 31 + 7, backend.semantics());
        this.random = new SplittableRandom(schedule.seed() ^ 0x5DEECE66DL);
        network.delays(Duration.ofMillis(1), Duration.ofMillis(4));
        network.loss(schedule.loss());
    }

    /**
     * Runs the seeds the system properties name on {@code backend} and
     * returns the outcomes that did not hold, each printed as it ends:
     * {@code faults.seeds} (300) seeds from {@code faults.seed} (1), of 8 to
     * {@code faults.max-nodes} (16) nodes and {@code faults.count} (3)
     * faults; {@code faults.verbose=true} prints every outcome.
     */
    public static List<Outcome> runSeeds(SimulatedBackend backend, int replicas) {
        int seeds = Integer.getInteger("faults.seeds", 300);
        long first = Long.getLong("faults.seed", 1);
        int maxNodes = Integer.getInteger("faults.max-nodes", 16);
        int faults = Integer.getInteger("faults.count", 3);
        boolean verbose = Boolean.getBoolean("faults.verbose");
        List<Outcome> broken = new ArrayList<>();
        for (long seed = first; seed < first + seeds; seed++) {
            Outcome outcome = run(FaultSchedule.draw(seed, 8, maxNodes, faults), backend, replicas);
            if (verbose || !outcome.held()) {
                System.out.println(outcome);
            }
            if (!outcome.held()) {
                broken.add(outcome);
            }
        }
        return broken;
    }

    /** Runs {@code schedule} on {@code backend} with {@code replicas} copies per key. */
    public static Outcome run(FaultSchedule schedule, SimulatedBackend backend, int replicas) {
        FaultScheduleRun run = new FaultScheduleRun(schedule, backend, replicas);
        run.execute();
        return new Outcome(schedule.seed(), backend.name(), schedule.nodes(),
                run.acknowledged.values().stream().mapToInt(Set::size).sum(), run.refused, run.failed,
                run.network.sent(), run.time.executed(), List.copyOf(run.violations), List.copyOf(run.events));
    }

    private void execute() {
        if (!form()) {
            return;
        }
        for (int w = 0; w < schedule.writers(); w++) {
            Writer writer = new Writer(w);
            writers.add(writer);
            writer.next();
        }
        for (FaultSchedule.Fault fault : schedule.faults()) {
            apply(fault);
            time.runFor(fault.span());
            network.heal();
            time.runFor(fault.quiet());
        }
        time.runFor(AFTER_FAULTS);
        stopWriters = true;
        if (!time.runUntil(() -> writers.stream().allMatch(w -> w.idle), OPERATION_BOUND)) {
            violations.add("writers still waiting " + OPERATION_BOUND.toSeconds() + " s after they were stopped");
        }
        time.runFor(FINAL_SETTLE);
        check();
        for (Member m : members) {
            for (Throwable t : m.owner.failures()) {
                violations.add("node " + m.address + " owner task threw " + t);
            }
        }
        members.stream().filter(m -> m.alive).forEach(m -> m.node.crash().run());
    }

    private HostPort address(int index) {
        return new HostPort("10.9." + (index >> 8) + "." + (index & 0xFF), 4000);
    }

    private Member startMember(List<HostPort> seeds) {
        int index = members.size();
        HostPort address = address(index);
        VirtualExecutor owner = time.executor(backend.name() + "-" + index);
        Member m = new Member(index, address, owner);
        OverlayRuntime runtime = new OverlayRuntime(owner, time.clock(), time::nanos, schedule.seed() * 1_000 + index);
        m.node = backend.start(address, runtime, network, seeds, replicas);
        m.node.joined().whenComplete((v, e) -> {
            if (e == null) {
                m.joined = true;
            } else if (m.alive) {
                violations.add("node " + address + " could not join via " + seeds + ": " + e);
            }
        });
        members.add(m);
        return m;
    }

    private boolean form() {
        startMember(List.of());
        for (int i = 1; i < schedule.nodes(); i++) {
            time.runFor(schedule.joinGap());
            startMember(List.of(randomLive().address));
        }
        if (!time.runUntil(() -> members.stream().allMatch(m -> m.joined) || !violations.isEmpty(), JOIN_BOUND)) {
            violations.add("the overlay did not form within " + JOIN_BOUND.toSeconds() + " s");
        }
        time.runFor(SETTLE);
        events.add(at() + " formed: " + schedule.nodes() + " nodes");
        return violations.isEmpty();
    }

    private String at() {
        return String.format("%8.3f s", time.nanos() / 1e9);
    }

    private List<Member> live() {
        return members.stream().filter(m -> m.alive && m.joined).toList();
    }

    private Member randomLive() {
        List<Member> live = members.stream().filter(m -> m.alive).toList();
        return live.get(random.nextInt(live.size()));
    }

    private List<Member> liveById() {
        return live().stream().sorted(Comparator.comparing(m -> new BigInteger(m.id(), 16))).toList();
    }

    private void apply(FaultSchedule.Fault fault) {
        List<Member> ring = liveById();
        Member target = ring.get(fault.pick() % ring.size());
        FaultSchedule.Kind kind = fault.kind();
        if (kind == FaultSchedule.Kind.CRASH && ring.size() <= replicas + MIN_LIVE_SPARE) {
            kind = FaultSchedule.Kind.JOIN;
        }
        switch (kind) {
            case CRASH -> {
                target.alive = false;
                target.node.crash().run();
                // A writer is part of its node's process: what it had in flight is in doubt, and it goes on
                // as a new writer at another node (as a phone re-registers through another proxy).
                for (Writer w : writers) {
                    if (w.entry == target && !w.idle) {
                        w.abandon();
                    }
                }
                events.add(at() + " crash " + target.address + " " + target.id().substring(0, 8));
            }
            case JOIN -> {
                Member m = startMember(List.of(target.address));
                events.add(at() + " join " + m.address + " via " + target.address);
            }
            case PAUSE_ADJACENT -> {
                Member next = ring.get((ring.indexOf(target) + 1) % ring.size());
                for (Member m : List.of(target, next)) {
                    m.owner.pause(fault.span().toNanos());
                    network.pause(m.address, fault.span());
                }
                events.add(at() + " pause " + target.address + " and " + next.address + " for "
                        + fault.span().toMillis() + " ms");
            }
            case PARTITION -> {
                network.partition(Set.of(target.address));
                events.add(at() + " cut off " + target.address + " for " + fault.span().toMillis() + " ms");
            }
        }
    }

    /** One writer: read, append its id, write back at the version read; again until stopped. */
    private final class Writer {
        final int number;
        long sequence;
        Member entry;
        boolean idle;

        /** Bumped when the writer's node dies, so the answer of what it had in flight is ignored. */
        int generation;

        Writer(int number) {
            this.number = number;
        }

        void abandon() {
            generation++;
            failed++;
            entry = null;
            next();
        }

        void next() {
            int mine = generation;
            if (stopWriters) {
                idle = true;
                return;
            }
            if (entry == null || !entry.alive) {
                List<Member> live = live();
                entry = live.get(random.nextInt(live.size()));
            }
            Dht dht = entry.node.dht();
            HostPort via = entry.address;
            String key = "key-" + random.nextInt(schedule.keys());
            long id = ((long) number << 32) | ++sequence;
            Instant expires = time.clock().instant().plus(Duration.ofDays(1));
            long[] readVersion = {-1};
            int[] readLength = {-1};
            dht.get(key).thenCompose(found -> {
                long version = found.map(VersionedValue::version).orElse(Dht.ABSENT);
                readVersion[0] = version;
                readLength[0] = found.map(v -> v.value().length / Long.BYTES).orElse(0);
                byte[] list = found.map(VersionedValue::value).orElse(new byte[0]);
                byte[] appended = ByteBuffer.allocate(list.length + Long.BYTES).put(list).putLong(id).array();
                return dht.putIfVersion(key, version, appended, expires);
            }).whenComplete((written, error) -> {
                if (generation != mine) {
                    return;
                }
                if (key.equals(TRACE)) {
                    System.out.println(at() + " w" + number + "#" + (id & 0xFFFFFFFFL) + " via " + via + " read "
                            + readVersion[0] + " (" + readLength[0] + " ids) -> "
                            + (error != null ? "failed " + error : written));
                }
                if (error != null) {
                    failed++;
                } else if (written) {
                    acknowledged.computeIfAbsent(key, k -> new LinkedHashSet<>()).add(id);
                    acknowledgedAt.put(id, "w" + number + "#" + (id & 0xFFFFFFFFL) + " acknowledged at " + at()
                            + " via " + via);
                } else {
                    refused++;
                }
                // Think time, so writers do not run in lockstep with each other.
                time.at(Duration.ofMillis(20 + random.nextInt(60)).toNanos(), this::next);
            });
        }
    }

    private void check() {
        List<Member> live = live();
        Map<String, CompletableFuture<Optional<VersionedValue>>> reads = new HashMap<>();
        for (String key : acknowledged.keySet()) {
            reads.put(key, live.get(random.nextInt(live.size())).node.dht().get(key));
        }
        time.runUntil(() -> reads.values().stream().allMatch(CompletableFuture::isDone), OPERATION_BOUND);
        for (Map.Entry<String, CompletableFuture<Optional<VersionedValue>>> read : reads.entrySet()) {
            String key = read.getKey();
            CompletableFuture<Optional<VersionedValue>> f = read.getValue();
            if (!f.isDone() || f.isCompletedExceptionally()) {
                violations.add(key + " could not be read: " + (f.isDone() ? f.handle((v, e) -> e).join() : "no answer"));
                continue;
            }
            Optional<VersionedValue> found = f.join();
            if (found.isEmpty()) {
                violations.add(key + " is gone although " + acknowledged.get(key).size() + " writes were acknowledged");
                continue;
            }
            ByteBuffer list = ByteBuffer.wrap(found.get().value());
            Set<Long> held = new HashSet<>();
            while (list.remaining() >= Long.BYTES) {
                long id = list.getLong();
                if (!held.add(id)) {
                    violations.add(key + " holds write " + Long.toHexString(id) + " twice");
                }
            }
            Set<Long> lost = new LinkedHashSet<>(acknowledged.get(key));
            lost.removeAll(held);
            if (!lost.isEmpty()) {
                violations.add(key + " lost " + lost.size() + " of " + acknowledged.get(key).size()
                        + " acknowledged writes: " + lost.stream().limit(3).map(acknowledgedAt::get).toList()
                        + ", read through a node holding version " + found.get().version());
            }
        }
    }
}
