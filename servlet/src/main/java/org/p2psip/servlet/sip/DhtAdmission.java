package org.p2psip.servlet.sip;

import java.text.ParseException;
import java.time.Duration;
import java.util.Iterator;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Supplier;

import javax.sip.InvalidArgumentException;
import javax.sip.header.ViaHeader;
import javax.sip.message.Request;
import javax.sip.message.Response;

import org.p2psip.core.guard.AdaptiveConcurrencyLimit;
import org.p2psip.core.guard.OverloadShare;

/**
 * Admits a request's DHT work at the node's edge, or refuses it with
 * {@code 503 Service Unavailable} and a Retry-After (RFC 3261 §21.5.4):
 * with the Chord and Kademlia backends the SIP queue stays short while the
 * work waits in the overlay, so only a limit on the requests waiting for
 * the DHT sheds what the overlay cannot carry before clients time out
 * (issue 33, "shed, never collapse"). One per node, shared by the
 * registrar and the proxy, since they load the same DHT.
 *
 * <p>A refusal answers the balancer's offer of RFC 7339 overload control
 * (a valueless {@code oc} on its Via) with the share of new requests the
 * node wants sent elsewhere or refused there ({@link OverloadShare}), so
 * that under a sustained overload the balancer refuses the excess before
 * any node parses it; every refusal carries a share, the smallest one
 * before any has been measured ({@link OverloadShare#percentWhileRefusing}),
 * since a bare 503 would hold the node off altogether.
 *
 * @param limit      how many requests may wait on the DHT; adapts to its latency
 * @param retryAfter what a refused client is told to wait
 * @param share      what the refusals ask of the balancer
 */
public record DhtAdmission(AdaptiveConcurrencyLimit limit, Duration retryAfter, OverloadShare share) {

    /** How long an {@code oc} instruction holds; refusals renew it while they go on. */
    public static final long OC_VALIDITY_MILLIS = 1_000;

    public DhtAdmission {
        Objects.requireNonNull(limit, "limit");
        Objects.requireNonNull(retryAfter, "retryAfter");
        Objects.requireNonNull(share, "share");
        if (retryAfter.isNegative() || retryAfter.isZero()) {
            throw new IllegalArgumentException("Retry-After must be positive");
        }
    }

    public DhtAdmission(AdaptiveConcurrencyLimit limit, Duration retryAfter) {
        this(limit, retryAfter, new OverloadShare());
    }

    /** An admission with {@link AdaptiveConcurrencyLimit.Settings#DEFAULT} limits. */
    public static DhtAdmission standard(Duration retryAfter) {
        return new DhtAdmission(new AdaptiveConcurrencyLimit(AdaptiveConcurrencyLimit.Settings.DEFAULT), retryAfter);
    }

    /** An admission that never refuses, for callers whose node gives them none. */
    public static DhtAdmission unbounded() {
        return new DhtAdmission(new AdaptiveConcurrencyLimit(AdaptiveConcurrencyLimit.Settings.unbounded()),
                Duration.ofSeconds(1));
    }

    /**
     * Starts {@code work} if the limit admits it: its future, failed with a
     * {@link TimeoutException} after {@code timeout}, whose completion frees
     * its place and tells the limit how long it took. Empty when refused:
     * the caller answers {@link #refusal}.
     */
    public <T> Optional<CompletableFuture<T>> start(Supplier<CompletableFuture<T>> work, Duration timeout) {
        long started = System.nanoTime();
        boolean admitted = limit.tryAcquire();
        share.record(!admitted, started);
        if (!admitted) {
            return Optional.empty();
        }
        CompletableFuture<T> future = timed(work, timeout);
        future.whenComplete((v, e) -> limit.release(started, System.nanoTime(), isTimeout(e)));
        return Optional.of(future);
    }

    /** {@code work}'s future, failed with a {@link TimeoutException} after {@code timeout}; failed if it threw. */
    public static <T> CompletableFuture<T> timed(Supplier<CompletableFuture<T>> work, Duration timeout) {
        try {
            return work.get().orTimeout(timeout.toMillis(), TimeUnit.MILLISECONDS);
        } catch (RuntimeException e) {
            return CompletableFuture.failedFuture(e);
        }
    }

    /** The 503 with Retry-After that refuses {@code request}. */
    public Response refusal(SipEndpoint sip, Request request) throws ParseException, InvalidArgumentException {
        Response r = sip.response(Response.SERVICE_UNAVAILABLE, request, "Location service overloaded");
        r.setHeader(sip.headers().createRetryAfterHeader((int) Math.max(1, retryAfter.toSeconds())));
        answerOverloadOffer(r, share.percentWhileRefusing(System.nanoTime()));
        return r;
    }

    /**
     * RFC 7339 §5.2: when the top Via (the balancer's) offers overload
     * control, the answer goes in it: {@code oc}, {@code oc-validity} and
     * an {@code oc-seq} from the wall clock in milliseconds, the order every
     * instruction this node sends follows.
     */
    static void answerOverloadOffer(Response response, int percent) throws ParseException {
        if (percent <= 0 || !(response.getHeader(ViaHeader.NAME) instanceof ViaHeader via) || !offers(via)) {
            return;
        }
        via.setParameter("oc", Integer.toString(percent));
        via.setParameter("oc-validity", Long.toString(OC_VALIDITY_MILLIS));
        via.setParameter("oc-seq", Long.toString(System.currentTimeMillis()));
    }

    /** Whether {@code via} carries {@code oc} without a value: an offer, not an instruction. */
    private static boolean offers(ViaHeader via) {
        for (Iterator<?> names = via.getParameterNames(); names.hasNext(); ) {
            if ("oc".equalsIgnoreCase(String.valueOf(names.next()))) {
                String value = via.getParameter("oc");
                return value == null || value.isEmpty();
            }
        }
        return false;
    }

    /** Requests refused since the node started. */
    public long refused() {
        return limit.refused();
    }

    private static boolean isTimeout(Throwable e) {
        Throwable cause = e instanceof CompletionException && e.getCause() != null ? e.getCause() : e;
        return cause instanceof TimeoutException;
    }
}
