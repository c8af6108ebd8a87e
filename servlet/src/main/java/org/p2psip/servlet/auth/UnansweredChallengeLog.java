package org.p2psip.servlet.auth;

import java.net.InetAddress;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Predicate;
import java.util.stream.Collectors;

import javax.sip.header.FromHeader;
import javax.sip.header.Header;
import javax.sip.header.HeaderAddress;
import javax.sip.header.ToHeader;
import javax.sip.message.Request;

import org.p2psip.core.auth.DigestAlgorithm;
import org.p2psip.core.auth.UnansweredChallenges;
import org.p2psip.core.guard.BadInputLog;
import org.p2psip.servlet.sip.ClientSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Tells the operator about a client that was challenged and gave up
 * without answering ({@link UnansweredChallenges}): one WARN per client
 * address per ten minutes, twenty per ten minutes in all, naming the
 * address, the user, the client's User-Agent and the algorithms offered,
 * with the usual cause. baresip 1.x, for one, answers only an MD5
 * challenge that comes first and shows its user only "Function not
 * implemented"; the node is where the reason can be read.
 *
 * <p>A client that answers on another node of a round-robin balancer is
 * reported too; under the default owner policy, and with one node, the
 * answer comes back to the node that challenged.
 */
public final class UnansweredChallengeLog {

    private static final Logger LOG = LoggerFactory.getLogger(UnansweredChallengeLog.class);
    /** Far longer than any phone takes to answer, and short enough that someone trying a phone sees the line. */
    static final Duration PATIENCE = Duration.ofSeconds(5);
    /**
     * The User-Agent of the nodes' and the balancer's own warm-up, whose
     * REGISTERs through a balancer carry no password and end at the
     * challenge on purpose ({@code WarmupLoad}).
     */
    public static final String WARM_UP_USER_AGENT = "p2psip warm-up";
    private static final int WATCHED = 4_096;
    private static final int MAX_USER_AGENT = 80;

    private final UnansweredChallenges watch = new UnansweredChallenges(PATIENCE, WATCHED);
    private final BadInputLog lines = new BadInputLog(Duration.ofMinutes(10), 20, WATCHED);
    private final List<DigestAlgorithm> offered;
    private final Predicate<InetAddress> trusted;
    private final Clock clock;
    private final Executor later;
    private final AtomicBoolean armed = new AtomicBoolean();

    /**
     * @param offered the algorithms challenges offer, in their order
     * @param trusted the hops whose Vias say where a client is ({@link ClientSource})
     */
    public UnansweredChallengeLog(List<DigestAlgorithm> offered, Predicate<InetAddress> trusted, Clock clock) {
        this(offered, trusted, clock, CompletableFuture.delayedExecutor(1, TimeUnit.SECONDS));
    }

    UnansweredChallengeLog(List<DigestAlgorithm> offered, Predicate<InetAddress> trusted, Clock clock, Executor later) {
        this.offered = List.copyOf(offered);
        this.trusted = trusted;
        this.clock = clock;
        this.later = later;
    }

    /** {@code request} gets a challenge (a 407 when {@code proxy}, else a 401). */
    public void challenged(Request request, boolean proxy) {
        String user = userOf(request, proxy);
        String agent = headerValue(request.getHeader("User-Agent"));
        if (agent.equals(WARM_UP_USER_AGENT)) {
            return;
        }
        synchronized (watch) {
            watch.challenged(ClientSource.of(request, trusted), user, agent, clock.instant());
        }
        if (armed.compareAndSet(false, true)) {
            later.execute(this::sweep);
        }
    }

    /** {@code request} carries credentials for this node's realm: its client can answer. */
    public void answered(Request request) {
        synchronized (watch) {
            if (watch.watched() == 0) {
                return;
            }
            watch.answered(ClientSource.of(request, trusted));
        }
    }

    /** Logs what is overdue; runs again a second later while anything is still watched. */
    void sweep() {
        List<UnansweredChallenges.Pending> due;
        boolean more;
        synchronized (watch) {
            due = watch.overdue(clock.instant());
            more = watch.watched() > 0;
        }
        for (UnansweredChallenges.Pending p : due) {
            if (lines.admit(p.source().getAddress(), System.nanoTime()) >= 0) {
                LOG.warn(line(p));
            }
        }
        armed.set(false);
        if (more && armed.compareAndSet(false, true)) {
            later.execute(this::sweep);
        }
    }

    /** The WARN for {@code p}. */
    String line(UnansweredChallenges.Pending p) {
        String algorithms = offered.stream().map(DigestAlgorithm::token).collect(Collectors.joining(", "));
        String agent = p.userAgent().isEmpty() ? "" : " (" + p.userAgent() + ")";
        String cause = offered.get(0) != DigestAlgorithm.MD5
                ? "a client that answers only MD5 and only the first challenge (baresip 1.x, SIPp 3.6) needs "
                        + "--digest-algorithms MD5; otherwise it has no password for this user"
                : "it has no password for this user, or answers none of these algorithms";
        return String.format("%s%s was challenged for %s (%s offered) and did not answer within %d s: %s",
                ClientSource.text(p.source()), agent, p.user(), algorithms, PATIENCE.toSeconds(), cause);
    }

    private static String userOf(Request request, boolean proxy) {
        Header h = request.getHeader(proxy ? FromHeader.NAME : ToHeader.NAME);
        if (h instanceof HeaderAddress a && a.getAddress() != null && a.getAddress().getURI() != null) {
            return BadInputLog.excerpt(a.getAddress().getURI().toString(), MAX_USER_AGENT);
        }
        return "?";
    }

    private static String headerValue(Header h) {
        if (h == null) {
            return "";
        }
        String text = h.toString();
        int colon = text.indexOf(':');
        return BadInputLog.excerpt((colon < 0 ? text : text.substring(colon + 1)).strip(), MAX_USER_AGENT);
    }
}
