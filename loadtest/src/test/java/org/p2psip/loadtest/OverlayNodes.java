package org.p2psip.loadtest;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;

/**
 * Node processes of one overlay backend on 127.0.0.1, as an operator starts
 * them: a seed, then members that bootstrap through it, all with the same
 * {@code --replicas} and overlay secret. For the kill tests of the
 * distributed backends.
 */
final class OverlayNodes implements AutoCloseable {

    /** One node process and its ports. */
    record Member(NodeProcess process, int sip, int overlay) {
        /** The overlay address, from which the backends derive the node's id. */
        String overlayAddress() {
            return "127.0.0.1:" + overlay;
        }
    }

    private final String dht;
    private final int replicas;
    private final String secret = "overlay-test-" + UUID.randomUUID();
    private final List<Member> members = new ArrayList<>();

    OverlayNodes(String dht, int replicas) {
        this.dht = dht;
        this.replicas = replicas;
    }

    /** Starts a seed and {@code count - 1} members joining through it, and waits until every one listens. */
    Member startAll(int count) throws Exception {
        Member seed = start(null);
        seed.process().awaitOutput("listening", Duration.ofSeconds(60));
        for (int i = 1; i < count; i++) {
            start(seed);
        }
        for (Member m : members) {
            m.process().awaitOutput("listening", Duration.ofSeconds(120));
        }
        return seed;
    }

    /** Starts one node, joining through {@code seed} unless it is null. */
    Member start(Member seed) throws Exception {
        int sip = FreePort.udpAndTcp();
        int overlay = FreePort.udpAndTcp();
        List<String> args = new ArrayList<>(List.of("node", "--dht", dht,
                "--sip", "127.0.0.1:" + sip, "--overlay", "127.0.0.1:" + overlay,
                "--replicas", Integer.toString(replicas), "--overlay-secret", secret));
        if (seed != null) {
            args.addAll(List.of("--bootstrap", seed.overlayAddress()));
        }
        Member m = new Member(NodeProcess.start(args.toArray(String[]::new)), sip, overlay);
        members.add(m);
        return m;
    }

    /** Stops a node with SIGTERM: a graceful leave. */
    void leave(Member m) throws Exception {
        members.remove(m);
        m.process().close();
    }

    /** SIGKILLs every node of {@code victims} at once: no goodbye, as in a crash. */
    void kill(List<Member> victims) throws InterruptedException {
        for (Member v : victims) {
            v.process().kill();
        }
        members.removeAll(victims);
    }

    List<Member> members() {
        return List.copyOf(members);
    }

    @Override
    public void close() throws Exception {
        for (Member m : members) {
            m.process().close();
        }
        members.clear();
    }
}
