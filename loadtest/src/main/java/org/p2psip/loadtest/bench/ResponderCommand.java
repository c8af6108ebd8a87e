package org.p2psip.loadtest.bench;

import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;

import org.p2psip.core.net.HostPort;

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
        description = "Answer every SIP request at once on UDP and TCP (200 OK; 180 and 200 to INVITE; "
                + "REGISTER gets its contact back with expires and a Date): a trivial target that measures the "
                + "load generator's own ceiling. Runs until SIGTERM or Ctrl-C.")
final class ResponderCommand implements Callable<Integer> {

    @Spec
    CommandSpec spec;

    @Option(names = "--sip", required = true, paramLabel = "HOST:PORT", converter = TargetConverter.class,
            description = "Address to answer on; UDP and TCP share the port.")
    HostPort sip;

    @Option(names = "--threads", paramLabel = "N", defaultValue = "1",
            description = "Event-loop threads. Default: ${DEFAULT-VALUE}.")
    int threads;

    @Override
    public Integer call() throws InterruptedException {
        if (threads < 1 || threads > 64) {
            throw new ParameterException(spec.commandLine(), "--threads must be between 1 and 64");
        }
        InetAddress host;
        try {
            host = InetAddress.getByName(sip.host());
        } catch (UnknownHostException e) {
            throw new BenchException("unknown host " + sip.host());
        }
        BuiltInUas uas = BuiltInUas.start(host, sip.port(), threads);
        CountDownLatch stopped = new CountDownLatch(1);
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            uas.close();
            stopped.countDown();
        }, "bench-responder-shutdown"));
        spec.commandLine().getOut().println("p2psip bench responder listening on sip:" + uas.hostPort() + " (udp, tcp)");
        spec.commandLine().getOut().flush();
        stopped.await();
        return 0;
    }
}
