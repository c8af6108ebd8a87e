package org.p2psip.loadtest.bench;

import java.io.PrintWriter;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.Callable;

import org.p2psip.core.net.HostPort;
import org.p2psip.servlet.cli.AuthMode;
import org.p2psip.servlet.cli.ClusterSecrets;
import org.p2psip.core.tls.TlsMaterial;
import org.p2psip.core.tls.TlsMaterialException;

import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/**
 * {@code p2psip bench register|reregister|call|message}: one scenario
 * against a target, at a fixed rate or searching for the highest rate the
 * target sustains. Prints a one-line summary (or one JSON object with
 * {@code --json}); shows a progress bar only on a terminal.
 */
@Command(mixinStandardHelpOptions = true, sortOptions = false,
        exitCodeListHeading = "%nExit codes:%n",
        exitCodeList = {
            "0:every request succeeded (with --max-rate: some rate held)",
            "1:the run could not start or finish (unreachable target, failed TLS handshake, busy port ...)",
            "2:bad flags",
            "3:the run finished but some requests failed (with --max-rate: no rate held)"})
final class ScenarioCommand implements Callable<Integer> {

    static final int SOME_FAILED = 3;

    private final Scenario scenario;

    @Spec
    CommandSpec spec;

    @Option(names = "--target", required = true, paramLabel = "HOST:PORT", converter = TargetConverter.class,
            description = "The node or balancer to load. All traffic goes there.")
    HostPort target;

    @Option(names = "--transport", paramLabel = "udp|tcp|tls", defaultValue = "udp",
            description = "Transport to the target. UDP requests are retransmitted on RFC 3261 timers; "
                    + "TCP uses one connection per thread; tls is TCP inside TLS 1.2 or 1.3 (RFC 3261 §26: "
                    + "Via SIP/2.0/TLS, contacts ;transport=tls), one connection per thread, each handshaken "
                    + "before the run, which a certificate not trusted (see --tls-ca) stops with exit code 1. "
                    + "Default: ${DEFAULT-VALUE}.")
    String transport;

    @Option(names = "--rate", paramLabel = "N",
            description = "Requests (calls, for call) started per second, open loop: they go out on schedule "
                    + "whether or not earlier ones were answered. Default: 1000.")
    Double rate;

    @Option(names = "--max-rate",
            description = "Instead of one rate, search for the highest rate at which at least 99.9 %% of requests "
                    + "succeed and p99 latency stays within --p99-bound-ms: raise the rate step by step "
                    + "(x1.5 from --start-rate), then narrow down between the last rate that held and the "
                    + "first that failed.")
    boolean maxRate;

    @Option(names = "--start-rate", paramLabel = "N", defaultValue = "500",
            description = "With --max-rate: the first rate tried. Default: ${DEFAULT-VALUE}.")
    double startRate;

    @Option(names = "--step-duration", paramLabel = "SECONDS", defaultValue = "5",
            description = "With --max-rate: how long each step sends. Default: ${DEFAULT-VALUE}.")
    long stepSeconds;

    @Option(names = "--p99-bound-ms", paramLabel = "MS", defaultValue = "200",
            description = "With --max-rate: the highest p99 latency a step may show and still hold. "
                    + "Default: ${DEFAULT-VALUE}.")
    double p99Bound;

    @Option(names = "--count", paramLabel = "N",
            description = "Most requests sent: 150,000 distinct AORs by default, as in the P2PSIP paper. "
                    + "With --max-rate the budget of the whole search (default 2,000,000).")
    Long count;

    @Option(names = "--duration", paramLabel = "SECONDS",
            description = "Longest sending time; the run then waits at most 64*T1 for answers. "
                    + "Default: 600; with --max-rate the budget of the whole search (default 300).")
    Long durationSeconds;

    @Option(names = "--threads", paramLabel = "N",
            description = "Sending threads, each with its own socket. Default: ${DEFAULT-VALUE}.")
    int threads = LoadSpec.of(Scenario.REGISTER, new HostPort("127.0.0.1", 5060)).threads();

    @Option(names = "--aors", paramLabel = "N", defaultValue = "1000",
            description = "call, message: how many AORs the built-in UAS registers before the run; each "
                    + "request goes to one of them. Default: ${DEFAULT-VALUE}.")
    int aors;

    @Option(names = "--setup-rate", paramLabel = "N", defaultValue = "2000",
            description = "Rate of the unmeasured registrations before the run (the UAS's AORs; reregister's "
                    + "first pass). Default: ${DEFAULT-VALUE}.")
    double setupRate;

    @Option(names = "--uas-transport", paramLabel = "udp|tcp|tls",
            description = "call, message: how the target reaches the built-in UAS, which registers its contacts "
                    + "with this transport. With tls the UAS also listens for TLS on a port of its own and presents "
                    + "--tls-cert/--tls-key. Default: --transport.")
    String uasTransport;

    @Option(names = "--tls-ca", paramLabel = "PEM",
            description = "With --transport tls: trust the certificates in this PEM file (a CA, or a cluster's "
                    + "self-signed cert.pem) besides the JDK's certificate authorities. Repeatable. The target's "
                    + "certificate must also name the host given in --target (subjectAltName, RFC 5922). "
                    + "Default: the JDK's authorities only.")
    List<Path> tlsCa = new ArrayList<>();

    @Option(names = "--tls-insecure",
            description = "With --transport tls: accept any certificate for any name. The traffic is encrypted "
                    + "but the target is not authenticated; says so on stderr. Default: off.")
    boolean tlsInsecure;

    @Option(names = "--tls-cert", paramLabel = "PEM",
            description = "call, message with --uas-transport tls: the built-in UAS's certificate chain (leaf "
                    + "first), with --tls-key. To be trusted by a cluster running a self-signed certificate, give "
                    + "the cluster's own cert.pem and key.pem. Default: a self-signed certificate for --local, "
                    + "made in memory.")
    Path tlsCert;

    @Option(names = "--tls-key", paramLabel = "PEM",
            description = "The unencrypted private key of --tls-cert (PKCS#8, PKCS#1 or SEC 1).")
    Path tlsKey;

    @Option(names = "--local", paramLabel = "HOST",
            description = "Local address to send from and to write in Via and Contact. "
                    + "Default: the one that routes to the target.")
    String local;

    @Option(names = "--domain", paramLabel = "HOST[:PORT]",
            description = "Domain of the AORs (sip:user@DOMAIN). Default: the target's HOST:PORT.")
    String domain;

    @Option(names = "--t1-ms", paramLabel = "MS", defaultValue = "500",
            description = "RFC 3261 T1: first retransmission interval over UDP; timeouts are 64*T1. "
                    + "Default: ${DEFAULT-VALUE}.")
    long t1Millis;

    @Option(names = "--max-in-flight", paramLabel = "N", defaultValue = "200000",
            description = "Most requests awaiting an answer at once; one due beyond that is not sent and "
                    + "counts as failed (in-flight-limit). Default: ${DEFAULT-VALUE}.")
    int maxInFlight;

    @Option(names = "--honour-retry-after",
            description = "register, reregister: send a REGISTER that got 503 with Retry-After again once after "
                    + "that many seconds, with the next CSeq, as a phone does (RFC 3261 §21.5.4); a second 503 "
                    + "fails it. The report counts the retries. Default: a 503 fails the REGISTER.")
    boolean honourRetryAfter;

    @Option(names = "--auth", paramLabel = "required|none", defaultValue = "required",
            converter = AuthMode.Converter.class,
            description = "required: act as the target's users bench0..bench<N-1> (and benchcallee0.. for the "
                    + "built-in UAS), answering 401/407 digest challenges and then sending credentials with every "
                    + "request, the nonce count going up as a phone's does; none: for a target running --auth none. "
                    + "Default: ${DEFAULT-VALUE}.")
    AuthMode auth;

    @Option(names = "--users", paramLabel = "N",
            description = "With --auth required: how many bench users flows cycle through. Default: ${DEFAULT-VALUE}.")
    int users = BenchAuth.DEFAULT_USERS;

    @Option(names = "--password", paramLabel = "PASSWORD",
            description = "With --auth required: the bench users' password. Default: ${DEFAULT-VALUE}.")
    String password = BenchAuth.DEFAULT_PASSWORD;

    @Option(names = "--admin", paramLabel = "HOST:PORT", split = ",", converter = TargetConverter.class,
            description = "With --auth required: provision the bench users through these admin endpoints before "
                    + "the run (the cluster secret comes from P2PSIP_CLUSTER_SECRET). Without it they must exist.")
    List<HostPort> admin = new ArrayList<>();

    @Option(names = "--json", description = "Print one JSON object instead of the summary line.")
    boolean json;

    ScenarioCommand(Scenario scenario) {
        this.scenario = scenario;
    }

    /** The subcommand for {@code scenario}, with its name and description. */
    static CommandLine commandLine(Scenario scenario, String description) {
        CommandLine cl = new CommandLine(new ScenarioCommand(scenario));
        cl.getCommandSpec().name(scenario.label());
        cl.getCommandSpec().usageMessage().description(description);
        return cl;
    }

    @Override
    public Integer call() {
        LoadSpec loadSpec = loadSpec();
        PrintWriter out = spec.commandLine().getOut();
        Progress progress = ProgressBar.forConsole();
        try {
            if (maxRate) {
                RateSearchSpec search = RateSearchSpec.DEFAULT.withStartRate(startRate)
                        .withStepDuration(Duration.ofSeconds(stepSeconds)).withP99Bound(p99Bound);
                MaxRateReport report;
                try (LoadRun run = LoadRun.open(loadSpec, progress)) {
                    report = run.searchMaxRate(loadSpec, search, progress);
                }
                clear(progress);
                out.println(json ? report.toJson() : report.summary());
                out.flush();
                return report.best() == null ? SOME_FAILED : 0;
            }
            LoadReport report = LoadRun.run(loadSpec, progress);
            clear(progress);
            out.println(json ? report.toJson() : report.summary());
            out.flush();
            return report.failed() == 0 ? 0 : SOME_FAILED;
        } finally {
            clear(progress);
        }
    }

    private static void clear(Progress progress) {
        if (progress instanceof ProgressBar bar) {
            bar.clear();
        }
    }

    private LoadSpec loadSpec() {
        if (maxRate && rate != null) {
            throw new ParameterException(spec.commandLine(), "--rate and --max-rate exclude each other");
        }
        require(rate == null || rate > 0, "--rate must be more than 0");
        require(startRate >= 1, "--start-rate must be at least 1");
        require(stepSeconds >= 1, "--step-duration must be at least 1 second");
        require(p99Bound > 0, "--p99-bound-ms must be more than 0");
        require(count == null || count >= 1, "--count must be at least 1");
        require(durationSeconds == null || durationSeconds >= 1, "--duration must be at least 1 second");
        require(threads >= 1 && threads <= 64, "--threads must be between 1 and 64");
        require(aors >= 1, "--aors must be at least 1");
        require(setupRate > 0, "--setup-rate must be more than 0");
        require(t1Millis >= 1, "--t1-ms must be at least 1");
        require(maxInFlight >= 1, "--max-in-flight must be at least 1");
        require(users >= 1, "--users must be at least 1");
        BenchAuth benchAuth = benchAuth();
        BenchTransport to = transport(transport, "--transport");
        BenchTransport toUas = uasTransport == null ? null : transport(uasTransport, "--uas-transport");
        BenchTls tls = tls(to, toUas != null ? toUas : to);
        long n = count != null ? count : maxRate ? 2_000_000 : LoadSpec.DEFAULT_COUNT;
        long seconds = durationSeconds != null ? durationSeconds : maxRate ? 300 : 600;
        return LoadSpec.of(scenario, target)
                .withTransport(to).withUasTransport(toUas).withTls(tls)
                .withRate(rate != null ? rate : 1000).withCount(n).withDuration(Duration.ofSeconds(seconds))
                .withThreads(threads).withAors(aors).withSetupRate(setupRate).withLocalHost(local).withDomain(domain)
                .withTimers(SipTimers.RFC3261.withT1(Duration.ofMillis(t1Millis))).withMaxInFlight(maxInFlight)
                .withHonourRetryAfter(honourRetryAfter)
                .withAuth(benchAuth);
    }

    private BenchTls tls(BenchTransport toTarget, BenchTransport toUas) {
        require(!(tlsInsecure && !tlsCa.isEmpty()), "--tls-ca and --tls-insecure exclude each other");
        require(toTarget == BenchTransport.TLS || (tlsCa.isEmpty() && !tlsInsecure),
                "--tls-ca and --tls-insecure need --transport tls");
        require((tlsCert == null) == (tlsKey == null), "--tls-cert and --tls-key go together");
        require(tlsCert == null || (scenario.needsUas() && toUas == BenchTransport.TLS),
                "--tls-cert and --tls-key are the built-in UAS's: they need call or message with --uas-transport tls");
        TlsTrust trust;
        try {
            trust = tlsInsecure ? TlsTrust.insecure() : TlsTrust.jdkDefaultsAnd(tlsCa);
        } catch (BenchException e) {
            throw new ParameterException(spec.commandLine(), "--tls-ca: " + e.getMessage());
        }
        TlsMaterial uas = null;
        if (tlsCert != null) {
            try {
                uas = TlsMaterial.load(tlsCert, tlsKey);
            } catch (TlsMaterialException e) {
                throw new ParameterException(spec.commandLine(), "--tls-cert/--tls-key: " + e.getMessage());
            }
        }
        if (tlsInsecure) {
            PrintWriter err = spec.commandLine().getErr();
            err.println(spec.qualifiedName() + ": warning: --tls-insecure: the target's certificate is not checked, "
                    + "so anyone on the path could pose as it");
            err.flush();
        }
        return new BenchTls(trust, uas);
    }

    private BenchAuth benchAuth() {
        if (!auth.required()) {
            return BenchAuth.NONE;
        }
        Optional<String> secret = ClusterSecrets.resolve(null);
        require(admin.isEmpty() || secret.isPresent(), "--admin needs the cluster secret in " + ClusterSecrets.ENV);
        require(!password.isEmpty(), "--password must not be empty");
        return BenchAuth.digest(users, password, admin, secret);
    }

    private BenchTransport transport(String value, String flag) {
        try {
            return BenchTransport.parse(value);
        } catch (IllegalArgumentException e) {
            throw new ParameterException(spec.commandLine(), "Invalid value for option '" + flag + "': "
                    + e.getMessage());
        }
    }

    private void require(boolean ok, String message) {
        if (!ok) {
            throw new ParameterException(spec.commandLine(), message);
        }
    }
}
