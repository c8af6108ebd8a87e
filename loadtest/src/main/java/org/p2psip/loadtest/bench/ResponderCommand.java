package org.p2psip.loadtest.bench;

import java.net.InetAddress;
import java.net.UnknownHostException;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;

import org.p2psip.core.net.HostPort;
import org.p2psip.core.tls.SelfSignedTls;
import org.p2psip.core.tls.TlsMaterial;
import org.p2psip.core.tls.TlsMaterialException;

import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/**
 * {@code p2psip bench responder}: the built-in UAS on its own, answering
 * every request at once — a trivial target that shows the load
 * generator's own ceiling (and SIPp's), free of any registrar's cost.
 */
@Command(name = "responder", mixinStandardHelpOptions = true, sortOptions = false,
        description = "Answer every SIP request at once on UDP and TCP, and TLS with --tls (200 OK; 180 and 200 "
                + "to INVITE; REGISTER gets its contact back with expires and a Date): a trivial target that "
                + "measures the load generator's own ceiling. Runs until SIGTERM or Ctrl-C.")
final class ResponderCommand implements Callable<Integer> {

    @Spec
    CommandSpec spec;

    @Option(names = "--sip", required = true, paramLabel = "HOST:PORT", converter = TargetConverter.class,
            description = "Address to answer on; UDP and TCP share the port.")
    HostPort sip;

    @Option(names = "--tls", paramLabel = "HOST:PORT", converter = TargetConverter.class,
            description = "Also answer SIP over TLS (RFC 3261 §26.2, TLS 1.2 or 1.3) here; 5061 is the usual port. "
                    + "Default: no TLS.")
    HostPort tls;

    @Option(names = "--tls-cert", paramLabel = "PEM",
            description = "With --tls: the certificate chain to present, leaf first. Default: a self-signed "
                    + "certificate for the --tls host made in memory, which clients accept only with "
                    + "--tls-insecure.")
    Path tlsCert;

    @Option(names = "--tls-key", paramLabel = "PEM",
            description = "With --tls: the unencrypted private key of --tls-cert (PKCS#8, PKCS#1 or SEC 1).")
    Path tlsKey;

    @Option(names = "--threads", paramLabel = "N", defaultValue = "1",
            description = "Event-loop threads. Default: ${DEFAULT-VALUE}.")
    int threads;

    @Override
    public Integer call() throws InterruptedException {
        if (threads < 1 || threads > 64) {
            throw new ParameterException(spec.commandLine(), "--threads must be between 1 and 64");
        }
        if ((tlsCert == null) != (tlsKey == null)) {
            throw new ParameterException(spec.commandLine(), "--tls-cert and --tls-key go together");
        }
        if (tls == null && tlsCert != null) {
            throw new ParameterException(spec.commandLine(), "--tls-cert and --tls-key need --tls");
        }
        BuiltInUas.TlsSide tlsSide = tls == null ? null : new BuiltInUas.TlsSide(address(tls), tls.port(), material());
        BuiltInUas uas = BuiltInUas.start(address(sip), sip.port(), threads, tlsSide);
        CountDownLatch stopped = new CountDownLatch(1);
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            uas.close();
            stopped.countDown();
        }, "bench-responder-shutdown"));
        spec.commandLine().getOut().println("p2psip bench responder listening on sip:" + uas.hostPort() + " (udp, tcp)"
                + (tlsSide == null ? "" : " and sip:" + uas.hostPort(BenchTransport.TLS) + ";transport=tls"
                        + (tlsCert == null ? " (self-signed certificate)" : "")));
        spec.commandLine().getOut().flush();
        stopped.await();
        return 0;
    }

    private static InetAddress address(HostPort hp) {
        try {
            return InetAddress.getByName(hp.host());
        } catch (UnknownHostException e) {
            throw new BenchException("unknown host " + hp.host());
        }
    }

    private TlsMaterial material() {
        try {
            return tlsCert != null ? TlsMaterial.load(tlsCert, tlsKey) : SelfSignedTls.inMemory(List.of(tls.host()));
        } catch (TlsMaterialException e) {
            throw new ParameterException(spec.commandLine(), "--tls-cert/--tls-key: " + e.getMessage());
        }
    }
}
