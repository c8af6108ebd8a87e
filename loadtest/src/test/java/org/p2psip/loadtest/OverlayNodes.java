package org.p2psip.loadtest;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

import org.p2psip.core.testing.FreePorts;

/**
 * Node processes of one overlay backend on 127.0.0.1, as an operator starts
 * them: a seed, then members that bootstrap through it, all with the same
 * {@code --replicas} and overlay secret. For the kill tests of the
 * distributed backends.
 */
final class OverlayNodes implements AutoCloseable {

    /** One node process and its ports. */
    record Member(NodeProcess process, int sip, int overlay, int metrics, int admin) {
        /** The overlay address, from which the backends derive the node's id (a chord joiner's seed places it). */
        String overlayAddress() {
            return "127.0.0.1:" + overlay;
        }

        /** The node's id on its overlay, as its status page tells it. */
        String overlayId() throws IOException, InterruptedException {
            HttpRequest get = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + metrics + "/status.json"))
                    .timeout(Duration.ofSeconds(5)).build();
            String body = HttpClient.newHttpClient().send(get, HttpResponse.BodyHandlers.ofString()).body();
            Matcher id = OVERLAY_ID.matcher(body);
            if (!id.find()) {
                throw new IOException("no overlay id on the status page of " + overlayAddress() + ": " + body);
            }
            return id.group(1);
        }
    }

    private static final Pattern OVERLAY_ID = Pattern.compile(
            "\\{\"name\":\"overlay id\",\"value\":\"([^\"]+)\"\\}");

    private final String dht;
    private final int replicas;
    private final Optional<String> domain;
    private final Optional<Integer> balancer;
    private final List<String> nodeArgs;
    private final String secret = "overlay-test-" + UUID.randomUUID();
    private Optional<Path> dataRoot = Optional.empty();
    private List<String> nodeFlags = List.of();

    /** The secret the nodes share: their overlay's, and what signs requests to their admin endpoints. */
    String secret() {
        return secret;
    }
    private final List<Member> members = new ArrayList<>();
    /** Every node started, including those since stopped or killed, for the output of a failed test. */
    private final List<Member> started = new ArrayList<>();

    OverlayNodes(String dht, int replicas) {
        this(dht, replicas, Optional.empty());
    }

    /** Nodes that all serve {@code domain} as their default domain, so an AOR there is one on every node. */
    OverlayNodes(String dht, int replicas, Optional<String> domain) {
        this(dht, replicas, domain, Optional.empty());
    }

    /**
     * Nodes behind a balancer on 127.0.0.1:{@code balancer}, which they
     * record-route through and so tell which keys they own; each also serves
     * its metrics on a port of its own.
     */
    OverlayNodes(String dht, int replicas, Optional<String> domain, Optional<Integer> balancer) {
        this(dht, replicas, domain, balancer, List.of());
    }

    /** As above, every node also given {@code nodeArgs} (accounting, flush settings ...). */
    OverlayNodes(String dht, int replicas, Optional<String> domain, Optional<Integer> balancer, List<String> nodeArgs) {
        this.dht = dht;
        this.replicas = replicas;
        this.domain = domain;
        this.balancer = balancer;
        this.nodeArgs = List.copyOf(nodeArgs);
    }

    /**
     * How long a test waits for a node's ready line: a node's warm-up has four phases of at most 30 s each
     * (front, overlay, claim, overlay again) after its JVM starts, and yields to a busy host.
     */
    static final Duration READY_WITHIN = Duration.ofSeconds(200);

    /** Starts a seed and {@code count - 1} members joining through it, and waits until every one listens. */
    Member startAll(int count) throws Exception {
        Member seed = start(null);
        seed.process().awaitOutput("listening", Duration.ofSeconds(60));
        for (int i = 1; i < count; i++) {
            start(seed);
        }
        for (Member m : members) {
            // A JVM takes 15-20 s to start when sixteen start at once on two cores.
            m.process().awaitOutput("listening", READY_WITHIN);
        }
        return seed;
    }

    /**
     * Starts a seed and {@code count - 1} members joining through it, each
     * once the one before it is ready, as an operator rolls out nodes one
     * at a time: each warms up with the host's cores to itself, where
     * {@link #startAll} has them share the cores and cut their warm-ups
     * short at the budget.
     */
    Member startOneByOne(int count) throws Exception {
        Member seed = start(null);
        seed.process().awaitOutput("listening", READY_WITHIN);
        for (int i = 1; i < count; i++) {
            start(seed).process().awaitOutput("listening", READY_WITHIN);
        }
        return seed;
    }

    /** Starts one node, joining through {@code seed} unless it is null. */
    Member start(Member seed) throws Exception {
        return start(seed, FreePorts.udpAndTcp());
    }

    /**
     * Gives every node started from now on a data directory of its own under
     * {@code root} ({@code --data-dir}, named for its overlay port so a
     * restarted node finds its own) and these further flags.
     */
    OverlayNodes keepingDataIn(Path root, String... nodeFlags) {
        this.dataRoot = Optional.of(root);
        this.nodeFlags = List.of(nodeFlags);
        return this;
    }

    /** Starts one node on SIP port {@code sip}, joining through {@code seed} unless it is null. */
    Member start(Member seed, int sip) throws Exception {
        int admin = FreePorts.udpAndTcp();
        return launch(seed, sip, FreePorts.udpAndTcp(), admin, FreePorts.udpAndTcp());
    }

    /**
     * Starts {@code gone} again (killed or stopped) on all its old ports and
     * with its data directory, joining through {@code seed} unless it is null.
     */
    Member restart(Member gone, Member seed) throws Exception {
        return launch(seed, gone.sip(), gone.overlay(), gone.admin(), gone.metrics());
    }

    private Member launch(Member seed, int sip, int overlay, int admin, int metrics) throws Exception {
        List<String> args = new ArrayList<>(List.of("node", "--dht", dht,
                "--sip", "127.0.0.1:" + sip, "--overlay", "127.0.0.1:" + overlay,
                "--replicas", Integer.toString(replicas), "--overlay-secret", secret,
                // These tests are about the overlay keeping bindings, not about who may write them.
                "--auth", "none"));
        if (seed != null) {
            args.addAll(List.of("--bootstrap", seed.overlayAddress()));
        }
        domain.ifPresent(d -> args.addAll(List.of("--domain", d)));
        args.addAll(nodeArgs);
        String extraArgs = System.getProperty("p2psip.test.nodeArgs", "").strip();
        if (!extraArgs.isEmpty()) {
            args.addAll(List.of(extraArgs.split("\\s+")));
        }
        // Every node serves the admin endpoint, signed with the overlay's secret, for 'p2psip status' and 'aor'.
        args.addAll(List.of("--admin", "127.0.0.1:" + admin));
        // Every node serves its metrics and status page: the tests read its overlay id there.
        args.addAll(List.of("--metrics", "127.0.0.1:" + metrics));
        if (balancer.isPresent()) {
            args.addAll(List.of("--record-route", "127.0.0.1:" + balancer.get(), "--alias", "127.0.0.1:" + balancer.get()));
        }
        dataRoot.ifPresent(root -> args.addAll(List.of("--data-dir", root.resolve("node-" + overlay).toString())));
        args.addAll(nodeFlags);
        Member m = new Member(NodeProcess.start(args.toArray(String[]::new)), sip, overlay, metrics, admin);
        members.add(m);
        started.add(m);
        return m;
    }

    /**
     * Starts {@code p2psip lb} on the balancer port these nodes record-route
     * through, in front of every node now running, serving its metrics and
     * status page on {@code metricsPort}, with {@code extra} flags, and
     * waits until it listens.
     */
    NodeProcess startBalancer(int metricsPort, String... extra) throws Exception {
        String list = members.stream().map(m -> "127.0.0.1:" + m.sip()).collect(Collectors.joining(","));
        List<String> args = new ArrayList<>(List.of("lb", "--sip", "127.0.0.1:" + balancer.orElseThrow(), "--nodes",
                list, "--trusted-source", "127.0.0.1", "--metrics", "127.0.0.1:" + metricsPort));
        args.addAll(List.of(extra));
        NodeProcess lb = NodeProcess.start(args.toArray(String[]::new));
        lb.awaitOutput("p2psip lb listening", Duration.ofSeconds(30));
        return lb;
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

    /**
     * A SIPp injection file of {@code count} AORs {@code PREFIX0 ..} in
     * {@code domain}, all with contact 127.0.0.1:5999, for
     * {@code sipp/register-domain.xml} and {@code sipp/fetch-domain.xml}.
     */
    static Path domainAors(Path dir, String prefix, int count, String domain) throws IOException {
        Path csv = dir.resolve(prefix + "-aors.csv");
        List<String> rows = new ArrayList<>(List.of("SEQUENTIAL"));
        for (int i = 0; i < count; i++) {
            rows.add(prefix + i + ";127.0.0.1:5999;" + domain);
        }
        Files.write(csv, rows, StandardCharsets.ISO_8859_1);
        return csv;
    }

    /**
     * One SIPp pass of {@code scenario} over every row of {@code csv} at
     * {@code rate} per second to node {@code to}, as written: one request
     * per AOR and SIPp's own retransmissions, nothing asked again. Errors go
     * to {@code NAME.log} in {@code dir}.
     */
    static Sipp.Result sippOnce(Path dir, Path csv, String scenario, Member to, String name, int count, int rate)
            throws Exception {
        // Twice the sending time, and a minute for the answers: a bound for a pass that hangs, not a pace.
        return Sipp.run(dir, Duration.ofSeconds(60 + 2L * count / rate),
                "-sf", Path.of("sipp", scenario).toAbsolutePath().toString(), "-inf", csv.toString(),
                "-key", "regcseq", "1", "-m", Integer.toString(count), "-r", Integer.toString(rate),
                "-i", "127.0.0.1", "-p", Integer.toString(FreePorts.udpAndTcp()),
                "-trace_err", "-error_file", dir.resolve(name + ".log").toString(), "127.0.0.1:" + to.sip());
    }

    /** {@code count} AORs {@code r0, r1, ...}, each with a contact of its own. */
    static Map<String, String> bindings(int count) {
        Map<String, String> out = new HashMap<>();
        for (int i = 0; i < count; i++) {
            out.put("r" + i, "sip:r" + i + "@127.0.0.1:" + (31000 + i));
        }
        return out;
    }

    /**
     * Registers every binding through {@code entry}, asking again until each
     * is acknowledged (an overlay still settling may refuse with a 5xx), and
     * fails the test if one never is.
     */
    static void registerAll(SipUdpClient client, int entry, Map<String, String> bindings) throws IOException {
        Set<String> unacknowledged = client.registerUntilAcknowledged(entry, bindings, Duration.ofSeconds(120));
        assertTrue(unacknowledged.isEmpty(), unacknowledged.size() + " REGISTERs never acknowledged");
    }

    /**
     * Reads every binding back through {@code reader} (AORs named by
     * {@code entry}) and fails the test unless each lists exactly its
     * contact within two minutes; a failure carries every node's output.
     */
    void assertAllListed(SipUdpClient client, int entry, int reader, Map<String, String> bindings, String after)
            throws IOException {
        assertAllListed(client, entry, reader, bindings, after, user -> "");
    }

    /** As above; a failure also says, for each unreadable user, what {@code where} says of it. */
    void assertAllListed(SipUdpClient client, int entry, int reader, Map<String, String> bindings, String after,
                         java.util.function.Function<String, String> where) throws IOException {
        Map<String, String> lastAnswers = new HashMap<>();
        Map<String, List<String>> listed = client.fetchUntilListed(entry, reader, bindings.keySet(),
                Duration.ofSeconds(120), lastAnswers);
        listed.forEach((user, contacts) ->
                assertEquals(List.of(bindings.get(user)), contacts, () -> "binding of " + user + " " + after
                        + nodeOutput()));
        Set<String> missing = new HashSet<>(bindings.keySet());
        missing.removeAll(listed.keySet());
        assertTrue(missing.isEmpty(), () -> missing.size() + " acknowledged AORs unreadable " + after + ": "
                + missing.stream().sorted().map(u -> u + where.apply(u) + " (last answer: "
                        + lastAnswers.getOrDefault(u, "none") + ")")
                .toList() + nodeOutput());
    }

    /**
     * The lines in which a node says it wrote a peer off for silence (its
     * calls timed out), naming a peer other than {@code dead}: a live peer
     * taken for dead. Refusals, a dead peer's own lines and lines about it
     * are not counted.
     */
    List<String> liveWriteOffs(List<Member> dead) {
        List<String> wrong = new ArrayList<>();
        for (Member m : started) {
            if (dead.contains(m)) {
                continue;
            }
            for (String line : m.process().output()) {
                int at = line.indexOf(" writes ");
                int off = line.indexOf(" off: ", Math.max(at, 0));
                if (at < 0 || off < 0) {
                    continue;
                }
                String peer = line.substring(at + " writes ".length(), off);
                if (dead.stream().noneMatch(d -> peer.endsWith(d.overlayAddress()))) {
                    wrong.add("overlay " + m.overlay() + ": " + line);
                }
            }
        }
        return wrong;
    }

    /**
     * The last lines each node printed, labelled with its ports; every
     * node's whole output goes to a file under {@code target/node-output}.
     */
    String nodeOutput() {
        StringBuilder out = new StringBuilder();
        Path dir = Path.of("target", "node-output", Long.toString(System.currentTimeMillis()));
        try {
            Files.createDirectories(dir);
            for (Member m : started) {
                Files.write(dir.resolve("overlay-" + m.overlay() + ".log"), m.process().output());
            }
            out.append("\nevery node's whole output: ").append(dir.toAbsolutePath());
        } catch (IOException e) {
            out.append("\n(could not write the nodes' output under ").append(dir).append(": ").append(e).append(')');
        }
        for (Member m : started) {
            List<String> lines = m.process().output();
            out.append("\n--- node sip ").append(m.sip()).append(" overlay ").append(m.overlay())
                    .append(members.contains(m) ? "" : " (stopped)").append(" ---\n");
            lines.subList(Math.max(0, lines.size() - 60), lines.size()).forEach(l -> out.append(l).append('\n'));
        }
        return out.toString();
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
