package org.p2psip.servlet.cli;

import java.net.InetAddress;
import java.net.UnknownHostException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

import org.p2psip.core.guard.SourceLimits;

import picocli.CommandLine;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;

/**
 * Per-source rate limiting and bans ({@link SourceLimits}), the same
 * flags for {@code lb}, {@code node} and {@code cluster}.
 */
final class SourceOptions {

    @Option(names = "--source-rate", paramLabel = "N",
            description = "Messages per second one source address may send on average (UDP datagrams, TCP/TLS "
                    + "messages and connection attempts all count); a source that goes over is banned. "
                    + "0 turns the limit off. Default: ${DEFAULT-VALUE}.")
    int rate = SourceLimits.DEFAULT.ratePerSecond();

    @Option(names = "--source-burst", paramLabel = "N",
            description = "Messages one source may send at once before --source-rate applies (a NAT's phones "
                    + "re-registering together). Default: ${DEFAULT-VALUE}.")
    int burst = SourceLimits.DEFAULT.burst();

    @Option(names = "--source-ban", paramLabel = "SECONDS",
            description = "How long a source over its rate is ignored: its messages are dropped unanswered and "
                    + "its connections closed. Default: ${DEFAULT-VALUE}.")
    long banSeconds = SourceLimits.DEFAULT.ban().toSeconds();

    @Option(names = "--trusted-source", paramLabel = "ADDRESS", split = ",",
            description = "An address never limited (repeatable or comma-separated): another balancer, a "
                    + "monitoring host, a load generator. The nodes are always trusted.")
    List<String> trusted = new ArrayList<>();

    SourceLimits limits(CommandLine cl) {
        if (rate < 0) {
            throw new ParameterException(cl, "--source-rate must be 0 (off) or more, not " + rate);
        }
        if (burst < 1) {
            throw new ParameterException(cl, "--source-burst must be at least 1, not " + burst);
        }
        if (banSeconds < 0) {
            throw new ParameterException(cl, "--source-ban must not be negative, not " + banSeconds);
        }
        return rate == 0 ? SourceLimits.OFF
                : new SourceLimits(rate, burst, Duration.ofSeconds(banSeconds),
                        SourceLimits.DEFAULT.maxSources());
    }

    Set<InetAddress> trusted(CommandLine cl) {
        Set<InetAddress> addresses = new LinkedHashSet<>();
        for (String t : trusted) {
            String a = t.strip();
            if (a.startsWith("[") && a.endsWith("]")) {
                a = a.substring(1, a.length() - 1);
            }
            // Literals only, as for node: a name would mean a DNS lookup at start and trust in its answer.
            if (a.isEmpty() || !a.matches("[0-9A-Fa-f:.]+")) {
                throw new ParameterException(cl, "--trusted-source needs an IP address, not '" + t + "'");
            }
            try {
                addresses.add(InetAddress.getByName(a));
            } catch (UnknownHostException e) {
                throw new ParameterException(cl, "--trusted-source needs an IP address, not '" + t + "'");
            }
        }
        return addresses;
    }
}
