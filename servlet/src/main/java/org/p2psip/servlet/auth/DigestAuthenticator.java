package org.p2psip.servlet.auth;

import java.text.ParseException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ThreadLocalRandom;

import javax.sip.header.AuthorizationHeader;
import javax.sip.header.Header;
import javax.sip.header.HeaderFactory;
import javax.sip.header.ProxyAuthorizationHeader;
import javax.sip.header.ViaHeader;
import javax.sip.message.Request;
import javax.sip.message.Response;

import org.p2psip.core.auth.CredentialStore;
import org.p2psip.core.auth.DigestAlgorithm;
import org.p2psip.core.auth.DigestChallenge;
import org.p2psip.core.auth.DigestCredentials;
import org.p2psip.core.auth.DigestRules;
import org.p2psip.core.auth.DigestVerdict;
import org.p2psip.core.auth.NonceCountStore;
import org.p2psip.core.auth.NonceStatus;
import org.p2psip.core.auth.StatelessNonces;
import org.p2psip.core.location.AddressOfRecord;
import org.p2psip.core.location.ServedDomains;
import org.p2psip.servlet.sip.HeaderLists;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import gov.nist.javax.sip.header.AuthenticationHeader;

/**
 * Digest authentication of SIP requests (RFC 3261 §22) against
 * credentials in the DHT: reads the Authorization (registrar, 401) or
 * Proxy-Authorization (proxy, 407) meant for the realm, lets
 * {@link DigestRules} decide, and records the nonce count so that the same
 * response is refused on every node afterwards, except in a copy of the
 * request that used it (a retransmission the balancer sent to another node;
 * see {@link NonceCountStore}). Writes the challenges.
 *
 * <p>Nothing blocks: the outcome is a future that completes on whatever
 * thread the DHT completes on. A failing DHT fails the future; the caller
 * answers 500.
 */
public final class DigestAuthenticator {

    private static final Logger LOG = LoggerFactory.getLogger(DigestAuthenticator.class);

    private final ServedDomains domains;
    private final StatelessNonces nonces;
    private final CredentialStore credentials;
    private final NonceCountStore counts;
    private final List<DigestAlgorithm> algorithms;
    private final Clock clock;
    private final UnansweredChallengeLog unanswered;
    private final FailedLogins failedLogins;

    public DigestAuthenticator(ServedDomains domains, StatelessNonces nonces, CredentialStore credentials,
                               NonceCountStore counts, List<DigestAlgorithm> algorithms, Clock clock,
                               UnansweredChallengeLog unanswered, FailedLogins failedLogins) {
        this.domains = domains;
        this.nonces = nonces;
        this.credentials = credentials;
        this.counts = counts;
        this.algorithms = List.copyOf(algorithms);
        this.clock = clock;
        this.unanswered = unanswered;
        this.failedLogins = failedLogins;
    }

    /** Whether {@code aor} is a provisioned user: it has credentials in the cluster's store. */
    public CompletableFuture<Boolean> provisioned(AddressOfRecord aor) {
        return credentials.find(aor).thenApply(Optional::isPresent);
    }

    /**
     * Checks the credentials {@code request} carries for {@code realm}.
     *
     * @param proxy true to read Proxy-Authorization (a proxy's 407), false for Authorization (a registrar's 401)
     */
    public CompletableFuture<AuthOutcome> authenticate(Request request, boolean proxy, String realm) {
        Optional<DigestCredentials> answer = credentialsFor(request, proxy, realm);
        if (answer.isEmpty()) {
            return CompletableFuture.completedFuture(AuthOutcome.CHALLENGE);
        }
        unanswered.answered(request);
        DigestCredentials c = answer.get();
        Optional<AddressOfRecord> user = DigestRules.claimedUser(c, realm, domains);
        Instant now = clock.instant();
        NonceStatus nonce = nonces.check(c.nonce(), realm, now);
        if (user.isEmpty() || nonce instanceof NonceStatus.Invalid) {
            // Neither needs a DHT read to refuse, and the challenge looks like any other.
            return CompletableFuture.completedFuture(AuthOutcome.CHALLENGE);
        }
        Optional<Duration> refused = failedLogins.refusal(user.get(), request);
        if (refused.isPresent()) {
            return CompletableFuture.completedFuture(new AuthOutcome.Refused(refused.get()));
        }
        String method = request.getMethod();
        return credentials.find(user.get()).thenCompose(stored -> {
            DigestVerdict verdict = DigestRules.verify(c, method, stored, nonce, algorithms);
            if (verdict instanceof DigestVerdict.Verified v) {
                NonceStatus.Fresh fresh = (NonceStatus.Fresh) nonce;
                return counts.admit(user.get(), c.nonce(), v.nc(), transactionOf(request), now,
                                nonces.freshUntil(fresh.issuedAt()))
                        .thenApply(first -> first ? new AuthOutcome.Authenticated(v.user()) : AuthOutcome.STALE);
            }
            if (verdict instanceof DigestVerdict.Failed f) {
                failedLogins.failed(user.get(), request);
                if (LOG.isDebugEnabled()) {
                    LOG.debug("{} for {} not authenticated: {}", method, user.get(), f.why());
                }
            }
            return CompletableFuture.completedFuture(
                    verdict instanceof DigestVerdict.Stale ? AuthOutcome.STALE : AuthOutcome.CHALLENGE);
        });
    }

    /**
     * Adds one challenge per offered algorithm, most preferred first
     * (RFC 8760 §2.4), all with one new nonce: WWW-Authenticate to a 401,
     * Proxy-Authenticate to a 407. A {@code request} that carried no
     * credentials for the realm is watched for an answer
     * ({@link UnansweredChallengeLog}).
     */
    public void challenge(Request request, Response response, HeaderFactory headers, String realm, boolean stale)
            throws ParseException {
        boolean proxy = response.getStatusCode() == Response.PROXY_AUTHENTICATION_REQUIRED;
        if (credentialsFor(request, proxy, realm).isEmpty()) {
            unanswered.challenged(request, proxy);
        }
        String nonce = nonces.issue(realm, clock.instant(), ThreadLocalRandom.current().nextLong());
        for (DigestAlgorithm a : algorithms) {
            response.addHeader(headers.createHeader(proxy ? "Proxy-Authenticate" : "WWW-Authenticate",
                    DigestChallenge.value(realm, nonce, a, stale)));
        }
    }

    /**
     * Removes the Proxy-Authorization values for {@code realm} from a
     * request about to be forwarded: they were for this cluster and are
     * used up (RFC 3261 §22.3).
     */
    public static void consume(Request request, String realm) {
        List<Header> all = HeaderLists.of(request, ProxyAuthorizationHeader.NAME);
        if (all.isEmpty()) {
            return;
        }
        request.removeHeader(ProxyAuthorizationHeader.NAME);
        for (Header h : all) {
            if (!(h instanceof AuthenticationHeader a) || !realm.equalsIgnoreCase(a.getParameter("realm"))) {
                request.addHeader(h);
            }
        }
    }

    /** The request's transaction (RFC 3261 §17.2.3), for telling its copies from replays. */
    private static long transactionOf(Request request) {
        ViaHeader via = (ViaHeader) request.getHeader(ViaHeader.NAME);
        if (via == null) {
            return NonceCountStore.transactionOf(null, null, request.getMethod());
        }
        return NonceCountStore.transactionOf(via.getBranch(), via.getHost() + ":" + via.getPort(),
                request.getMethod());
    }

    /** The Digest credentials for {@code realm} among the request's (Proxy-)Authorization values. */
    private static Optional<DigestCredentials> credentialsFor(Request request, boolean proxy, String realm) {
        for (Header h : HeaderLists.of(request, proxy ? ProxyAuthorizationHeader.NAME : AuthorizationHeader.NAME)) {
            if (h instanceof AuthenticationHeader a && "Digest".equalsIgnoreCase(a.getScheme())
                    && realm.equalsIgnoreCase(a.getParameter("realm"))) {
                return Optional.of(new DigestCredentials(a.getParameter("username"), a.getParameter("realm"),
                        a.getParameter("nonce"), a.getParameter("uri"), a.getParameter("response"),
                        a.getParameter("algorithm"), a.getParameter("cnonce"), a.getParameter("qop"),
                        a.getParameter("nc"), a.getParameter("opaque")));
            }
        }
        return Optional.empty();
    }
}
