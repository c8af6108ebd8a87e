package org.p2psip.loadtest;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.p2psip.core.testing.FreePorts;

/**
 * {@code p2psip cluster} as an operator who cares about trust runs it: the
 * nodes serve {@link #DOMAIN}, require digest authentication (MD5 only,
 * which is all SIPp 3.6 knows), share a cluster secret, and take users
 * through their admin endpoints, which {@code p2psip user import} fills.
 * The balancer takes turns (round-robin), so a challenge and its answer
 * usually meet different nodes. SIPp registers and calls only through the
 * balancer.
 */
final class AuthenticatedCluster implements AutoCloseable {

    static final String DOMAIN = "p2psip.test";
    /**
     * REGISTER calls per second for the ten-thousand-user runs: well inside
     * what three nodes, the balancer and SIPp carry on two shared cores, so
     * the run checks the outcome of every registration rather than the
     * machine's capacity (that is measured in {@code bench}). At 600/s the
     * chord cluster here sat at its capacity: in about half the runs SIPp
     * held 1,200 calls open and retransmitted some 11,000 REGISTERs.
     */
    static final int ACCEPTANCE_RATE = 300;
    /** The rate a register run starts at; a higher one is reached in steps of half this a second. */
    private static final int RAMP_FROM = 50;
    private static final Pattern NODE_LINE = Pattern.compile(
            "p2psip cluster: node (\\d+) pid (\\d+) sip:127\\.0\\.0\\.1:(\\d+).* admin:(127\\.0\\.0\\.1:\\d+)");

    private final Path work;
    private final NodeProcess process;
    private final int lbPort;
    private final String secret;
    private final Map<Integer, Long> nodePids = new LinkedHashMap<>();
    private final List<String> admins = new ArrayList<>();

    private AuthenticatedCluster(Path work, NodeProcess process, int lbPort, String secret) {
        this.work = work;
        this.process = process;
        this.lbPort = lbPort;
        this.secret = secret;
    }

    /**
     * Starts {@code nodes} nodes of {@code dht} behind the balancer and waits for them.
     *
     * @param extra further {@code cluster} flags
     */
    static AuthenticatedCluster start(Path work, String dht, int nodes, int replicas, String... extra) throws Exception {
        List<String> flags = new ArrayList<>(List.of("--replicas", Integer.toString(replicas)));
        flags.addAll(List.of(extra));
        return startWithDefaults(work, dht, nodes, flags.toArray(String[]::new));
    }

    /** As {@link #start}, leaving the number of copies to {@code cluster}'s default. */
    static AuthenticatedCluster startWithDefaults(Path work, String dht, int nodes, String... extra) throws Exception {
        Sipp.binary();
        int base = FreePorts.consecutive(2 * nodes + 1);
        int adminBase = FreePorts.consecutive(nodes);
        String secret = "acceptance-" + UUID.randomUUID();
        List<String> args = new ArrayList<>(List.of("cluster", "--dht", dht, "--nodes", Integer.toString(nodes),
                "--sip", "127.0.0.1:" + base,
                "--overlay-base", Integer.toString(base + nodes + 1), "--admin-base", Integer.toString(adminBase),
                "--domain", DOMAIN, "--digest-algorithms", "MD5", "--policy", "round-robin"));
        args.addAll(List.of(extra));
        NodeProcess p = NodeProcess.start(Map.of("P2PSIP_CLUSTER_SECRET", secret), args.toArray(String[]::new));
        AuthenticatedCluster cluster = new AuthenticatedCluster(work, p, base, secret);
        p.awaitOutput("p2psip cluster ready", Duration.ofSeconds(150));
        for (String line : p.output()) {
            Matcher m = NODE_LINE.matcher(line);
            if (m.find()) {
                cluster.nodePids.put(Integer.parseInt(m.group(1)), Long.parseLong(m.group(2)));
                cluster.admins.add(m.group(4));
                assertEquals(base + Integer.parseInt(m.group(1)), Integer.parseInt(m.group(3)), line);
            }
        }
        assertEquals(nodes, cluster.nodePids.size(), "one layout line per node:\n" + String.join("\n", p.output()));
        return cluster;
    }

    int lbPort() {
        return lbPort;
    }

    Map<Integer, Long> nodePids() {
        return nodePids;
    }

    NodeProcess process() {
        return process;
    }

    static String password(String user) {
        return "pw-" + Integer.toHexString(user.hashCode()) + "-" + user.length();
    }

    /** Provisions users {@code NAMEu0 .. NAMEu(count-1)} with {@code p2psip user import} through the admin endpoints. */
    void importUsers(String name, int count) throws Exception {
        List<String> rows = new ArrayList<>(count + 1);
        rows.add("aor,password");
        for (int i = 0; i < count; i++) {
            String user = name + "u" + i;
            rows.add(user + "@" + DOMAIN + "," + password(user));
        }
        Path csv = work.resolve(name + "-users.csv");
        Files.write(csv, rows, StandardCharsets.UTF_8);
        try (NodeProcess importer = NodeProcess.start(Map.of("P2PSIP_CLUSTER_SECRET", secret), "user", "import",
                csv.toString(), "--cluster", String.join(",", admins))) {
            assertEquals(0, importer.awaitExit(Duration.ofSeconds(120)), String.join("\n", importer.output()));
            assertTrue(importer.output().stream().anyMatch(l -> l.contains("imported " + count + " users")),
                    String.join("\n", importer.output()));
        }
    }

    /**
     * SIPp's digest register scenario for the imported users {@code NAMEuI},
     * through the balancer. Fast runs ramp up from 100/s by 150/s each
     * second: JVMs that have just started share two cores with SIPp, and a
     * cold start at full rate measures the JIT, not the cluster.
     */
    Sipp.Result registerRun(String name, int count, int rate) throws Exception {
        Path users = work.resolve(name + ".csv");
        List<String> rows = new ArrayList<>(count + 1);
        rows.add("SEQUENTIAL");
        for (int i = 0; i < count; i++) {
            String user = name + "u" + i;
            rows.add(user + ";127.0.0.1:" + (20000 + i % 40000) + ";" + password(user));
        }
        Files.write(users, rows, StandardCharsets.ISO_8859_1);
        List<String> args = new ArrayList<>(List.of("-sf", Path.of("sipp", "register-auth.xml").toAbsolutePath().toString(),
                "-inf", users.toString(), "-au", "[field0]", "-ap", "[field2]", "-cid_str", name + "-%u",
                "-m", Integer.toString(count), "-l", Integer.toString(2 * rate),
                "-i", "127.0.0.1", "-p", Integer.toString(FreePorts.udpAndTcp()),
                "-trace_err", "-error_file", work.resolve(name + "-errors.log").toString()));
        if (rate > RAMP_FROM) {
            // Fresh node JVMs run the SIP path interpreted at first: a run that starts at full rate
            // overloads them for its first seconds, and SIPp's retransmissions keep it overloaded.
            args.addAll(List.of("-r", Integer.toString(RAMP_FROM), "-rate_increase", Integer.toString(RAMP_FROM / 2),
                    "-rate_interval", "1s", "-rate_max", Integer.toString(rate), "-no_rate_quit"));
        } else {
            args.addAll(List.of("-r", Integer.toString(rate)));
        }
        args.add("127.0.0.1:" + lbPort);
        return Sipp.run(work, Duration.ofSeconds(150), args.toArray(String[]::new));
    }

    /**
     * What SIPp received instead of the expected answer in run {@code name},
     * counted by status line, with the first whole message of each status
     * other than 200, so a failure seen once on CI can be read there.
     */
    String unexpected(String name) throws Exception {
        Path errors = work.resolve(name + "-errors.log");
        if (!Files.exists(errors)) {
            return "";
        }
        Map<String, Long> counts = new TreeMap<>();
        Map<String, String> firsts = new TreeMap<>();
        Matcher m = Pattern.compile("received '((SIP/2\\.0 (\\d{3})[^\\r\\n]*)[^']{0,1500})")
                .matcher(Files.readString(errors, StandardCharsets.ISO_8859_1));
        while (m.find()) {
            counts.merge(m.group(2), 1L, Long::sum);
            if (!m.group(3).equals("200")) {
                firsts.putIfAbsent(m.group(2), m.group(1));
            }
        }
        List<String> flaps = process.output().stream().filter(l -> l.contains(" is down") || l.contains(" is up again")).toList();
        return "\nreceived instead (or after the call ended): " + counts + "\nbalancer health changes: " + flaps
                + (firsts.isEmpty() ? "" : "\nthe first of each:\n" + String.join("\n---\n", firsts.values()));
    }

    /** A SIPp uas registered (with its password) through the balancer, then SIPp's uac calling it through the balancer. */
    Sipp.Result callRun(String callee, int calls, int rate) throws Exception {
        return callRun(callee, calls, rate, "-sn", "uac");
    }

    /** As {@link #callRun(String, int, int)}, the caller running the given scenario ({@code -sn NAME} or {@code -sf FILE}). */
    Sipp.Result callRun(String callee, int calls, int rate, String... callerScenario) throws Exception {
        int uasPort = FreePorts.udpAndTcp();
        Process uas = Sipp.startBackground(work, "-sn", "uas", "-i", "127.0.0.1", "-p", Integer.toString(uasPort));
        try {
            String lb = "127.0.0.1:" + lbPort;
            Sipp.Result register = Sipp.registerOneWithPassword(work, callee, password(callee), "127.0.0.1:" + uasPort, lb);
            assertEquals(0, register.exitCode(), register.toString());
            List<String> args = new ArrayList<>(List.of(callerScenario));
            args.addAll(List.of("-s", callee, "-m", Integer.toString(calls), "-r", Integer.toString(rate),
                    "-l", Integer.toString(2 * rate), "-i", "127.0.0.1", "-p", Integer.toString(FreePorts.udpAndTcp()),
                    "-trace_err", "-error_file", work.resolve(callee + "-call-errors.log").toString(), lb));
            Sipp.Result result = Sipp.run(work, Duration.ofSeconds(90), args.toArray(String[]::new));
            assertTrue(uas.isAlive(), "the SIPp uas died during the run");
            return result;
        } finally {
            uas.destroy();
            uas.waitFor(5, TimeUnit.SECONDS);
        }
    }

    @Override
    public void close() throws Exception {
        process.close();
        for (long pid : nodePids.values()) {
            ProcessHandle.of(pid).ifPresent(ProcessHandle::destroyForcibly);
        }
    }
}
