package org.p2psip.servlet.auth;

import java.net.InetAddress;
import java.time.Clock;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;

import javax.sip.header.FromHeader;
import javax.sip.header.Header;
import javax.sip.header.HeaderAddress;
import javax.sip.header.ToHeader;
import javax.sip.message.Request;

import org.p2psip.core.auth.DigestAlgorithm;
import org.p2psip.core.auth.UnansweredChallengeWarnings;
import org.p2psip.servlet.sip.ClientSource;
import org.slf4j.LoggerFactory;

/**
 * The node's {@link UnansweredChallengeWarnings}: reads the client's
 * address, user and User-Agent out of a JAIN-SIP request.
 *
 * <p>A client that answers on another node of a round-robin balancer is
 * reported too; under the default owner policy, and with one node, the
 * answer comes back to the node that challenged. Behind a balancer that
 * challenges at the edge, the first challenge is the balancer's, and so
 * is the warning.
 */
public final class UnansweredChallengeLog {

    /** The User-Agent of the warm-up's REGISTERs, which end at the challenge on purpose. */
    public static final String WARM_UP_USER_AGENT = UnansweredChallengeWarnings.WARM_UP_USER_AGENT;

    private final UnansweredChallengeWarnings warnings;
    private final Predicate<InetAddress> trusted;

    /**
     * @param offered the algorithms challenges offer, in their order
     * @param trusted the hops whose Vias say where a client is ({@link ClientSource})
     */
    public UnansweredChallengeLog(List<DigestAlgorithm> offered, Predicate<InetAddress> trusted, Clock clock) {
        this(offered, trusted, clock, CompletableFuture.delayedExecutor(1, TimeUnit.SECONDS));
    }

    UnansweredChallengeLog(List<DigestAlgorithm> offered, Predicate<InetAddress> trusted, Clock clock, Executor later) {
        this.warnings = new UnansweredChallengeWarnings(offered, clock, later,
                LoggerFactory.getLogger(UnansweredChallengeLog.class));
        this.trusted = trusted;
    }

    /** {@code request} gets a challenge (a 407 when {@code proxy}, else a 401). */
    public void challenged(Request request, boolean proxy) {
        warnings.challenged(ClientSource.of(request, trusted), userOf(request, proxy),
                headerValue(request.getHeader("User-Agent")));
    }

    /** {@code request} carries credentials for this node's realm: its client can answer. */
    public void answered(Request request) {
        warnings.answered(ClientSource.of(request, trusted));
    }

    private static String userOf(Request request, boolean proxy) {
        Header h = request.getHeader(proxy ? FromHeader.NAME : ToHeader.NAME);
        if (h instanceof HeaderAddress a && a.getAddress() != null && a.getAddress().getURI() != null) {
            return a.getAddress().getURI().toString();
        }
        return "?";
    }

    private static String headerValue(Header h) {
        if (h == null) {
            return "";
        }
        String text = h.toString();
        int colon = text.indexOf(':');
        return (colon < 0 ? text : text.substring(colon + 1)).strip();
    }
}
