package org.p2psip.loadtest.connections;

import java.io.IOException;
import java.io.PrintWriter;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;

import org.p2psip.loadtest.process.TargetSample;

import org.p2psip.core.net.HostPort;

import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/**
 * {@code p2psip bench connections}: holds many TCP connections open to a
 * node or balancer on loopback and reports how the target deals with them
 * (its idle timeout, its message deadline with {@code --slowloris}, its
 * connection caps) and what they cost it in memory; with
 * {@code --register-rate}, how it carries REGISTER refreshes from all of
 * them (seed: TCP for very large SIP servers). One thread and one
 * selector; bounded in count (19,000: this process holds a descriptor for
 * each, under the machine's 20,000) and in time.
 */
@Command(name = "connections", mixinStandardHelpOptions = true, sortOptions = false,
        description = "Open --count TCP connections to a SIP target on a loopback address, round-robin over "
                + "--sources, at --rate per second; keep them idle (or, with --slowloris, send a request whose "
                + "body never arrives whole); watch up to --watch seconds how many the target closes and when. "
                + "With --register-rate, once all are open each connection registers its own AOR and refreshes "
                + "it in turn, at that many REGISTERs per second for --register-seconds. "
                + "Reports opened, failed, refused on accept, closed later (median, p90, max time from opening), "
                + "still open, REGISTERs answered 2xx and failed with their latency, and the target's RSS before, "
                + "with all open and after (--pid). Loopback only.")
public final class ConnectionsCommand implements Callable<Integer> {

    static final int MAX_COUNT = 19_000;
    static final long MAX_REGISTER_SECONDS = 600;
    static final long MAX_WATCH_SECONDS = 900;
    static final long MAX_OPENING_SECONDS = 900;
    /** Descriptors this JVM needs besides the connections: jars, the selector, stdio. */
    private static final int SPARE_FILES = 200;

    @Spec
    CommandSpec spec;

    @Option(names = "--target", required = true, paramLabel = "HOST:PORT",
            description = "The node or balancer (TCP), on a 127.0.0.0/8 (or ::1) address.")
    String target;

    @Option(names = "--count", paramLabel = "N",
            description = "Connections to open, at most 19000. Default: ${DEFAULT-VALUE}.")
    int count = 1_000;

    @Option(names = "--sources", paramLabel = "LIST",
            description = "Source addresses, used round-robin: a range (127.0.0.10-127.0.0.40) or a comma list "
                    + "of addresses and ranges, all loopback. Default: ${DEFAULT-VALUE}.")
    String sources = "127.0.0.10-127.0.0.40";

    @Option(names = "--rate", paramLabel = "N",
            description = "Connections opened per second; opening all of them may take at most 900 s. "
                    + "Default: ${DEFAULT-VALUE}.")
    int rate = 1_000;

    @Option(names = "--slowloris",
            description = "On each connection send a request line and headers with Content-Length: 1000, then "
                    + "10 bytes of body, then nothing (the target's --message-deadline should close it).")
    boolean slowloris;

    @Option(names = "--watch", paramLabel = "SECONDS",
            description = "How long to watch after the last connection opened, at most 900; the watch ends "
                    + "sooner once the target has closed them all. Default: ${DEFAULT-VALUE}.")
    long watchSeconds = 60;

    @Option(names = "--connect-timeout", paramLabel = "MILLIS",
            description = "A connect not answered within this long counts as failed. Default: ${DEFAULT-VALUE}.")
    long connectTimeoutMillis = 5_000;

    @Option(names = "--refused-within", paramLabel = "MILLIS",
            description = "A connection the target closes this soon after it opened counts as refused (a cap "
                    + "closing it right after accept), not as closed. Default: ${DEFAULT-VALUE}.")
    long refusedWithinMillis = 1_000;

    @Option(names = "--probe-source", paramLabel = "ADDRESS",
            description = "Once the others are open, open one more connection from this loopback address (not "
                    + "one of --sources) and report whether the target kept it: a per-source cap must not "
                    + "refuse other sources.")
    String probeSource;

    @Option(names = "--pid", paramLabel = "PID", description = "The target's process, to read its RSS and threads.")
    long pid;

    @Option(names = "--register-rate", paramLabel = "N",
            description = "REGISTERs per second sent over the open connections once all are open, each connection "
                    + "registering sip:connI@DOMAIN with a Contact at its own address and refreshing it on its "
                    + "turn (round-robin); 0: none. Needs a target that does not challenge (--auth none). "
                    + "Default: ${DEFAULT-VALUE}.")
    double registerRate;

    @Option(names = "--register-seconds", paramLabel = "SECONDS",
            description = "How long to send REGISTERs, at most 600. Default: ${DEFAULT-VALUE}.")
    long registerSeconds = 30;

    @Option(names = "--domain", paramLabel = "DOMAIN",
            description = "The domain of the registered AORs. Default: the target's address.")
    String domain;

    public static CommandLine commandLine() {
        return new CommandLine(new ConnectionsCommand());
    }

    @Override
    public Integer call() throws Exception {
        ConnectionsSpec run = validate();
        PrintWriter out = spec.commandLine().getOut();
        PrintWriter err = spec.commandLine().getErr();
        out.printf("connections: %,d to %s from %d source%s at %s/s, %s%n", count,
                target, run.sources().size(), run.sources().size() == 1 ? "" : "s", trim(rate),
                slowloris ? "slowloris, watching up to " + watchSeconds + " s"
                        : registerRate > 0 ? "REGISTER refreshes at " + trim(registerRate) + "/s for "
                                + registerSeconds + " s" : "idle, watching up to " + watchSeconds + " s");
        out.flush();
        ConnectionsReport report = new ConnectionsRun(run, () -> TargetSample.of(pid), err).run();
        if (pid > 0) {
            // Let the target notice the closes and run a collection before its memory is read again.
            TimeUnit.SECONDS.sleep(2);
        }
        report = ConnectionsRun.withAfter(report, TargetSample.of(pid));
        out.print(report.text());
        out.flush();
        return 0;
    }

    ConnectionsSpec validate() {
        CommandLine cl = spec.commandLine();
        HostPort to;
        try {
            to = HostPort.parse(target);
        } catch (IllegalArgumentException e) {
            throw new ParameterException(cl, "--target: " + e.getMessage());
        }
        InetAddress targetAddress;
        try {
            targetAddress = InetAddress.getByName(to.host());
        } catch (UnknownHostException e) {
            throw new ParameterException(cl, "--target: unknown host " + to.host());
        }
        if (!targetAddress.isLoopbackAddress()) {
            throw new ParameterException(cl, "--target " + target + " is not a loopback address; "
                    + "bench connections only connects to 127.0.0.0/8 or ::1");
        }
        if (count < 1 || count > MAX_COUNT) {
            throw new ParameterException(cl, "--count must be 1.." + MAX_COUNT + " (this process holds a file "
                    + "descriptor for each connection)");
        }
        if (rate < 1 || rate > 1_000_000) {
            throw new ParameterException(cl, "--rate must be 1..1000000");
        }
        if ((double) count / rate > MAX_OPENING_SECONDS) {
            throw new ParameterException(cl, "--count / --rate is " + trim((double) count / rate)
                    + " s; opening may take at most " + MAX_OPENING_SECONDS + " s");
        }
        if (watchSeconds < 1 || watchSeconds > MAX_WATCH_SECONDS) {
            throw new ParameterException(cl, "--watch must be 1.." + MAX_WATCH_SECONDS + " seconds");
        }
        if (connectTimeoutMillis < 10 || connectTimeoutMillis > 60_000) {
            throw new ParameterException(cl, "--connect-timeout must be 10..60000 ms");
        }
        if (refusedWithinMillis < 1 || refusedWithinMillis > 60_000) {
            throw new ParameterException(cl, "--refused-within must be 1..60000 ms");
        }
        List<InetAddress> from;
        try {
            from = SourceAddresses.parse(sources);
        } catch (IllegalArgumentException e) {
            throw new ParameterException(cl, "--sources: " + e.getMessage());
        }
        for (InetAddress a : from) {
            if (a.getAddress().length != targetAddress.getAddress().length) {
                throw new ParameterException(cl, "--sources: " + a.getHostAddress() + " is not of the target's "
                        + "address family");
            }
        }
        InetAddress probe = null;
        if (probeSource != null) {
            try {
                probe = SourceAddresses.parse(probeSource).get(0);
            } catch (IllegalArgumentException e) {
                throw new ParameterException(cl, "--probe-source: " + e.getMessage());
            }
            if (from.contains(probe) || probe.getAddress().length != targetAddress.getAddress().length) {
                throw new ParameterException(cl, "--probe-source must be a loopback address of the target's family "
                        + "that is not among --sources");
            }
        }
        long limit = openFileLimit();
        if (limit > 0 && count + SPARE_FILES > limit) {
            throw new ParameterException(cl, "--count " + count + " needs about " + (count + SPARE_FILES)
                    + " open files; this process may have " + limit);
        }
        if (pid < 0) {
            throw new ParameterException(cl, "--pid must be a process id");
        }
        if (registerRate < 0 || registerRate > 100_000 || Double.isNaN(registerRate)) {
            throw new ParameterException(cl, "--register-rate must be 0..100000 per second");
        }
        if (registerSeconds < 1 || registerSeconds > MAX_REGISTER_SECONDS) {
            throw new ParameterException(cl, "--register-seconds must be 1.." + MAX_REGISTER_SECONDS);
        }
        if (registerRate > 0 && slowloris) {
            throw new ParameterException(cl, "--register-rate and --slowloris exclude each other: a slowloris "
                    + "connection never completes a message");
        }
        String aorDomain = domain != null ? domain : to.toString();
        if (aorDomain.isBlank() || aorDomain.chars().anyMatch(c -> c <= ' ' || c == '<' || c == '>' || c == '@')) {
            throw new ParameterException(cl, "--domain '" + domain + "' is not a host name or address");
        }
        return new ConnectionsSpec(new InetSocketAddress(targetAddress, to.port()), from, count, rate, slowloris,
                TimeUnit.SECONDS.toMillis(watchSeconds), connectTimeoutMillis, refusedWithinMillis, probe,
                registerRate, TimeUnit.SECONDS.toMillis(registerSeconds), aorDomain);
    }

    /** The soft limit on open files from /proc/self/limits; -1 if unknown or unlimited. */
    static long openFileLimit() {
        try {
            for (String line : Files.readAllLines(Path.of("/proc/self/limits"))) {
                if (line.startsWith("Max open files")) {
                    String[] f = line.substring("Max open files".length()).trim().split("\\s+");
                    return f[0].equals("unlimited") ? -1 : Long.parseLong(f[0]);
                }
            }
        } catch (IOException | RuntimeException e) {
            return -1;
        }
        return -1;
    }

    private static String trim(double d) {
        return d == Math.rint(d) ? Long.toString((long) d) : String.format(java.util.Locale.ROOT, "%.1f", d);
    }
}
