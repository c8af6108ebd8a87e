package org.p2psip.servlet.sip;

import java.text.ParseException;
import java.time.Duration;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Supplier;

import javax.sip.InvalidArgumentException;
import javax.sip.message.Request;
import javax.sip.message.Response;

import org.p2psip.core.guard.AdaptiveConcurrencyLimit;

/**
 * Admits a request's DHT work at the node's edge, or refuses it with
 * {@code 503 Service Unavailable} and a Retry-After (RFC 3261 §21.5.4):
 * with the Chord and Kademlia backends the SIP queue stays short while the
 * work waits in the overlay, so only a limit on the requests waiting for
 * the DHT sheds what the overlay cannot carry before clients time out
 * (issue 33, "shed, never collapse"). One per node, shared by the
 * registrar and the proxy, since they load the same DHT.
 *
 * @param limit      how many requests may wait on the DHT; adapts to its latency
 * @param retryAfter what a refused client is told to wait
 */
public record DhtAdmission(AdaptiveConcurrencyLimit limit, Duration retryAfter) {

    public DhtAdmission {
        Objects.requireNonNull(limit, "limit");
        Objects.requireNonNull(retryAfter, "retryAfter");
        if (retryAfter.isNegative() || retryAfter.isZero()) {
            throw new IllegalArgumentException("Retry-After must be positive");
        }
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
        if (!limit.tryAcquire()) {
            return Optional.empty();
        }
        long started = System.nanoTime();
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
        return r;
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
