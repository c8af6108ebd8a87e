package org.p2psip.loadtest.bench;

import java.time.Duration;
import java.util.Objects;

import org.p2psip.core.net.HostPort;

/**
 * Everything one load run needs. Every run is bounded twice: by
 * {@code count} flows and by {@code duration} of sending, after which open
 * flows get at most {@code drain} to finish.
 *
 * @param scenario    what each flow does
 * @param target      the node (or balancer) all traffic goes to
 * @param transport   UDP, TCP or TLS
 * @param rate        flows started per second (open loop)
 * @param count       most flows started
 * @param duration    longest sending time
 * @param threads     lanes, each with its own socket and event-loop thread
 * @param aors        how many AORs the built-in UAS registers (call, message)
 * @param setupRate   registrations per second of the unmeasured setup (UAS AORs; reregister's first pass)
 * @param firstIndex  index of the first flow; runs with different indices use different AORs
 * @param localHost   address to bind and to write in Via/Contact; null picks the one routing to the target
 * @param domain      host[:port] of the AORs; null uses the target's
 * @param timers      RFC 3261 timer values
 * @param drain       longest wait for open flows after the last send; null means Timer F (64*T1)
 * @param maxInFlight most flows open at once (per run, shared evenly by the lanes)
 * @param uasTransport transport the built-in UAS registers its contacts with, so the node reaches it over it;
 *                    null means {@code transport}
 * @param auth        whether and as whom the generator authenticates
 * @param tls         over TLS: whom the lanes trust, what the built-in UAS presents
 * @param honourRetryAfter send a request that got 503 with Retry-After again once after that wait, as a
 *                    phone does (RFC 3261 §21.5.4); the report counts how often
 */
public record LoadSpec(Scenario scenario, HostPort target, BenchTransport transport, double rate, long count,
                       Duration duration, int threads, int aors, double setupRate, long firstIndex,
                       String localHost, String domain, SipTimers timers, Duration drain, int maxInFlight,
                       BenchTransport uasTransport, BenchAuth auth, BenchTls tls, boolean honourRetryAfter) {

    /** The paper's registration test size. */
    public static final long DEFAULT_COUNT = 150_000;

    public LoadSpec {
        Objects.requireNonNull(scenario, "scenario");
        Objects.requireNonNull(target, "target");
        Objects.requireNonNull(transport, "transport");
        Objects.requireNonNull(duration, "duration");
        Objects.requireNonNull(timers, "timers");
        Objects.requireNonNull(auth, "auth");
        Objects.requireNonNull(tls, "tls");
        if (!(rate > 0)) {
            throw new IllegalArgumentException("rate must be more than 0");
        }
        if (count < 1) {
            throw new IllegalArgumentException("count must be at least 1");
        }
        if (duration.isNegative() || duration.isZero()) {
            throw new IllegalArgumentException("duration must be more than 0");
        }
        if (threads < 1) {
            throw new IllegalArgumentException("threads must be at least 1");
        }
        if (aors < 1) {
            throw new IllegalArgumentException("aors must be at least 1");
        }
        if (!(setupRate > 0)) {
            throw new IllegalArgumentException("setup rate must be more than 0");
        }
        if (firstIndex < 0) {
            throw new IllegalArgumentException("first index must not be negative");
        }
        if (maxInFlight < 1) {
            throw new IllegalArgumentException("max in flight must be at least 1");
        }
    }

    /** A run of {@code scenario} against {@code target} with the defaults: UDP, 1,000/s, 150,000 flows, at most 10 minutes. */
    public static LoadSpec of(Scenario scenario, HostPort target) {
        return new LoadSpec(scenario, target, BenchTransport.UDP, 1000, DEFAULT_COUNT, Duration.ofMinutes(10),
                Math.max(1, Math.min(2, Runtime.getRuntime().availableProcessors())), 1000, 2000, 0, null, null,
                SipTimers.RFC3261, null, 200_000, null, BenchAuth.NONE, BenchTls.DEFAULT, false);
    }

    public LoadSpec withTransport(BenchTransport t) {
        return new LoadSpec(scenario, target, t, rate, count, duration, threads, aors, setupRate, firstIndex, localHost,
                domain, timers, drain, maxInFlight, uasTransport, auth, tls, honourRetryAfter);
    }

    public LoadSpec withRate(double r) {
        return new LoadSpec(scenario, target, transport, r, count, duration, threads, aors, setupRate, firstIndex,
                localHost, domain, timers, drain, maxInFlight, uasTransport, auth, tls, honourRetryAfter);
    }

    public LoadSpec withCount(long c) {
        return new LoadSpec(scenario, target, transport, rate, c, duration, threads, aors, setupRate, firstIndex,
                localHost, domain, timers, drain, maxInFlight, uasTransport, auth, tls, honourRetryAfter);
    }

    public LoadSpec withDuration(Duration d) {
        return new LoadSpec(scenario, target, transport, rate, count, d, threads, aors, setupRate, firstIndex,
                localHost, domain, timers, drain, maxInFlight, uasTransport, auth, tls, honourRetryAfter);
    }

    public LoadSpec withThreads(int n) {
        return new LoadSpec(scenario, target, transport, rate, count, duration, n, aors, setupRate, firstIndex,
                localHost, domain, timers, drain, maxInFlight, uasTransport, auth, tls, honourRetryAfter);
    }

    public LoadSpec withAors(int n) {
        return new LoadSpec(scenario, target, transport, rate, count, duration, threads, n, setupRate, firstIndex,
                localHost, domain, timers, drain, maxInFlight, uasTransport, auth, tls, honourRetryAfter);
    }

    public LoadSpec withSetupRate(double r) {
        return new LoadSpec(scenario, target, transport, rate, count, duration, threads, aors, r, firstIndex,
                localHost, domain, timers, drain, maxInFlight, uasTransport, auth, tls, honourRetryAfter);
    }

    public LoadSpec withFirstIndex(long i) {
        return new LoadSpec(scenario, target, transport, rate, count, duration, threads, aors, setupRate, i,
                localHost, domain, timers, drain, maxInFlight, uasTransport, auth, tls, honourRetryAfter);
    }

    public LoadSpec withLocalHost(String h) {
        return new LoadSpec(scenario, target, transport, rate, count, duration, threads, aors, setupRate, firstIndex,
                h, domain, timers, drain, maxInFlight, uasTransport, auth, tls, honourRetryAfter);
    }

    public LoadSpec withDomain(String d) {
        return new LoadSpec(scenario, target, transport, rate, count, duration, threads, aors, setupRate, firstIndex,
                localHost, d, timers, drain, maxInFlight, uasTransport, auth, tls, honourRetryAfter);
    }

    public LoadSpec withTimers(SipTimers t) {
        return new LoadSpec(scenario, target, transport, rate, count, duration, threads, aors, setupRate, firstIndex,
                localHost, domain, t, drain, maxInFlight, uasTransport, auth, tls, honourRetryAfter);
    }

    public LoadSpec withDrain(Duration d) {
        return new LoadSpec(scenario, target, transport, rate, count, duration, threads, aors, setupRate, firstIndex,
                localHost, domain, timers, d, maxInFlight, uasTransport, auth, tls, honourRetryAfter);
    }

    public LoadSpec withMaxInFlight(int n) {
        return new LoadSpec(scenario, target, transport, rate, count, duration, threads, aors, setupRate, firstIndex,
                localHost, domain, timers, drain, n, uasTransport, auth, tls, honourRetryAfter);
    }

    public LoadSpec withScenario(Scenario s) {
        return new LoadSpec(s, target, transport, rate, count, duration, threads, aors, setupRate, firstIndex,
                localHost, domain, timers, drain, maxInFlight, uasTransport, auth, tls, honourRetryAfter);
    }

    public LoadSpec withUasTransport(BenchTransport t) {
        return new LoadSpec(scenario, target, transport, rate, count, duration, threads, aors, setupRate, firstIndex,
                localHost, domain, timers, drain, maxInFlight, t, auth, tls, honourRetryAfter);
    }

    public LoadSpec withAuth(BenchAuth a) {
        return new LoadSpec(scenario, target, transport, rate, count, duration, threads, aors, setupRate, firstIndex,
                localHost, domain, timers, drain, maxInFlight, uasTransport, a, tls, honourRetryAfter);
    }

    public LoadSpec withTls(BenchTls t) {
        return new LoadSpec(scenario, target, transport, rate, count, duration, threads, aors, setupRate, firstIndex,
                localHost, domain, timers, drain, maxInFlight, uasTransport, auth, t, honourRetryAfter);
    }

    public LoadSpec withHonourRetryAfter(boolean honour) {
        return new LoadSpec(scenario, target, transport, rate, count, duration, threads, aors, setupRate, firstIndex,
                localHost, domain, timers, drain, maxInFlight, uasTransport, auth, tls, honour);
    }

    /** The transport of the UAS's contacts: {@link #uasTransport} or {@link #transport}. */
    public BenchTransport effectiveUasTransport() {
        return uasTransport != null ? uasTransport : transport;
    }

    /** The AORs' domain: {@link #domain} or the target's host:port. */
    public String effectiveDomain() {
        return domain != null ? domain : target.toString();
    }

    /** The drain limit in nanoseconds: {@link #drain} or Timer F. */
    long drainNanos() {
        return drain != null ? drain.toNanos() : timers.timeoutNanos();
    }
}
