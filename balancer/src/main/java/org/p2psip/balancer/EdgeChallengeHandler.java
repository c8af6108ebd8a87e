package org.p2psip.balancer;

import org.p2psip.sip.wire.SipMessage;
import org.p2psip.sip.wire.SipParser;

import java.net.InetSocketAddress;
import java.time.Clock;
import java.util.Optional;
import java.util.concurrent.ThreadLocalRandom;

import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelHandler.Sharable;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import org.p2psip.core.auth.DigestAlgorithm;
import org.p2psip.core.auth.DigestChallenge;
import org.p2psip.core.auth.UnansweredChallengeWarnings;
import org.p2psip.core.guard.CredentialFreeBudget;
import org.p2psip.core.location.AddressOfRecord;
import org.p2psip.core.location.SipUri;

/**
 * Answers a REGISTER that carries no credentials with the 401 the nodes
 * would send (RFC 3261 §10.3 steps 1 and 3, §22.4; RFC 3261 §8.2.7 lets a
 * stateless UAS send exactly this challenge), so the first round of every
 * registration, and a flood of credential-free REGISTERs from many
 * sources, costs no node anything: the realm is the AOR's served domain,
 * one challenge per offered algorithm in the nodes' order (RFC 8760
 * §2.4), all with one nonce under the cluster secret, which any node
 * accepts. The client's answer, carrying credentials, goes to a node as
 * before.
 *
 * <p>Only what is certain is answered here: a REGISTER whose Request-URI
 * and To both name a served domain, with no Require header (the node
 * answers 420 for an extension it lacks, §10.3 step 2) and Max-Forwards
 * left. Everything else passes on to the router untouched. A client that
 * never answers the challenge is reported, as a node would
 * ({@link UnansweredChallengeWarnings}).
 *
 * <p>Sits between {@link SipParserHandler} and {@link SipRouter} on the
 * clients' side, for datagrams and for messages framed from TCP and TLS
 * connections.
 */
@Sharable
public final class EdgeChallengeHandler extends ChannelInboundHandlerAdapter {

    private final EdgeChallenges settings;
    private final LocalAnswers answers;
    private final Egress egress;
    private final BalancerCounters counters;
    private final UnansweredChallengeWarnings unanswered;
    private final Clock clock;

    EdgeChallengeHandler(EdgeChallenges settings, LocalAnswers answers, Egress egress, BalancerCounters counters,
                         UnansweredChallengeWarnings unanswered, Clock clock) {
        this.settings = settings;
        this.answers = answers;
        this.egress = egress;
        this.counters = counters;
        this.unanswered = unanswered;
        this.clock = clock;
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        if (msg instanceof SipMessage m && m.request() && "REGISTER".equals(m.method())) {
            if (!CredentialFreeBudget.governs(m.bytes(), m.end())) {
                unanswered.answered(m.frame().sender());
            } else {
                Optional<String> realm = realm(m);
                if (realm.isPresent()) {
                    challenge(m, realm.get());
                    return;
                }
            }
        }
        ctx.fireChannelRead(msg);
    }

    /** The realm a node would challenge {@code m} in, or empty when a node is to decide what to answer. */
    Optional<String> realm(SipMessage m) {
        if (m.maxForwardsValue() == 0 || SipParser.headerValue(m, "Require").isPresent()) {
            return Optional.empty();
        }
        try {
            if (!settings.domains().serves(SipUri.parse(m.requestUri()))) {
                return Optional.empty();
            }
            return settings.domains().canonical(AddressOfRecord.parse(m.toUri())).map(AddressOfRecord::host);
        } catch (IllegalArgumentException e) {
            return Optional.empty();
        }
    }

    private void challenge(SipMessage m, String realm) {
        String nonce = settings.nonces().issue(realm, clock.instant(), ThreadLocalRandom.current().nextLong());
        String[] challenges = new String[settings.algorithms().size()];
        int i = 0;
        for (DigestAlgorithm a : settings.algorithms()) {
            challenges[i++] = "WWW-Authenticate: " + DigestChallenge.value(realm, nonce, a, false);
        }
        counters.countChallenged();
        egress.toClient(SipRouter.returnAddress(m),
                Unpooled.wrappedBuffer(answers.build(m, 401, "Unauthorized", challenges)));
        InetSocketAddress source = m.frame().sender();
        unanswered.challenged(source, m.toUri(), SipParser.headerValue(m, "User-Agent").orElse(""));
    }
}
