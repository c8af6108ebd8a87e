package org.p2psip.core.auth;

import java.net.InetSocketAddress;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.Executor;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.stream.Collectors;

import org.p2psip.core.guard.BadInputLog;
import org.slf4j.Logger;

/**
 * Tells the operator about a client that was challenged and gave up
 * without answering ({@link UnansweredChallenges}): one WARN per client
 * address per ten minutes, twenty per ten minutes in all, naming the
 * address, the user, the client's User-Agent and the algorithms offered,
 * with the usual cause. baresip 1.x, for one, answers only an MD5
 * challenge that comes first and shows its user only "Function not
 * implemented"; the server that challenged is where the reason can be
 * read. Whoever challenges — a node, or the balancer answering at the
 * edge — keeps one of these; a transport-free form, so both can.
 */
public final class UnansweredChallengeWarnings {

    /** Far longer than any phone takes to answer, and short enough that someone trying a phone sees the line. */
    public static final Duration PATIENCE = Duration.ofSeconds(5);
    /**
     * The User-Agent of the nodes' and the balancer's own warm-up, whose
     * REGISTERs carry no password and end at the challenge on purpose.
     */
    public static final String WARM_UP_USER_AGENT = "p2psip warm-up";
    private static final int WATCHED = 4_096;
    /** The longest user or User-Agent a line quotes. */
    public static final int MAX_QUOTED = 80;

    private final UnansweredChallenges watch = new UnansweredChallenges(PATIENCE, WATCHED);
    private final BadInputLog lines = new BadInputLog(Duration.ofMinutes(10), 20, WATCHED);
    private final List<DigestAlgorithm> offered;
    private final Clock clock;
    private final Executor later;
    private final Logger log;
    private final AtomicBoolean armed = new AtomicBoolean();

    /**
     * @param offered the algorithms challenges offer, in their order
     * @param later   runs a sweep about a second from now
     * @param log     where the warnings go
     */
    public UnansweredChallengeWarnings(List<DigestAlgorithm> offered, Clock clock, Executor later, Logger log) {
        if (offered.isEmpty()) {
            throw new IllegalArgumentException("a challenge offers at least one algorithm");
        }
        this.offered = List.copyOf(offered);
        this.clock = clock;
        this.later = later;
        this.log = log;
    }

    /** {@code source} was challenged for {@code user}; {@code userAgent} is its User-Agent value or empty. */
    public void challenged(InetSocketAddress source, String user, String userAgent) {
        if (userAgent.equals(WARM_UP_USER_AGENT)) {
            return;
        }
        synchronized (watch) {
            // Escaped only if a line is written: a flood is challenged far more often than it is reported.
            watch.challenged(source, cut(user), cut(userAgent), clock.instant());
        }
        if (armed.compareAndSet(false, true)) {
            later.execute(this::sweep);
        }
    }

    /** {@code source} sent credentials for the realm: its client can answer. */
    public void answered(InetSocketAddress source) {
        synchronized (watch) {
            if (watch.watched() == 0) {
                return;
            }
            watch.answered(source);
        }
    }

    /** Logs what is overdue; runs again a second later while anything is still watched. */
    public void sweep() {
        List<UnansweredChallenges.Pending> due;
        boolean more;
        synchronized (watch) {
            due = watch.overdue(clock.instant());
            more = watch.watched() > 0;
        }
        for (UnansweredChallenges.Pending p : due) {
            if (lines.admit(p.source().getAddress(), System.nanoTime()) >= 0) {
                log.warn(line(p));
            }
        }
        armed.set(false);
        if (more && armed.compareAndSet(false, true)) {
            later.execute(this::sweep);
        }
    }

    /** The WARN for {@code p}. */
    public String line(UnansweredChallenges.Pending p) {
        String algorithms = offered.stream().map(DigestAlgorithm::token).collect(Collectors.joining(", "));
        String agent = p.userAgent().isEmpty() ? "" : " (" + BadInputLog.excerpt(p.userAgent(), MAX_QUOTED) + ")";
        String cause = offered.get(0) != DigestAlgorithm.MD5
                ? "a client that answers only MD5 and only the first challenge (baresip 1.x, SIPp 3.6) needs "
                        + "--digest-algorithms MD5; otherwise it has no password for this user"
                : "it has no password for this user, or answers none of these algorithms";
        return String.format("%s%s was challenged for %s (%s offered) and did not answer within %d s: %s",
                text(p.source()), agent, BadInputLog.excerpt(p.user(), MAX_QUOTED), algorithms, PATIENCE.toSeconds(), cause);
    }

    private static String cut(String text) {
        return text.length() > MAX_QUOTED ? text.substring(0, MAX_QUOTED + 1) : text;
    }

    /** An address as a line names it: {@code 192.0.2.1:5060}, {@code [2001:db8::1]:5060}. */
    public static String text(InetSocketAddress address) {
        String ip = address.getAddress().getHostAddress();
        return (ip.indexOf(':') >= 0 ? "[" + ip + "]" : ip) + ":" + address.getPort();
    }
}
