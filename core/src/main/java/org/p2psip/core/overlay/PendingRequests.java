package org.p2psip.core.overlay;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Requests awaiting their answer, by request id: every registered future
 * completes exactly once — with the answer, with the peer's error, or
 * exceptionally with {@link OverlayException.Reason#TIMEOUT} when its
 * deadline passes first. Answers to unknown (late or forged) ids are ignored.
 */
public final class PendingRequests {

    private final Map<Long, CompletableFuture<byte[]>> pending = new ConcurrentHashMap<>();
    private final AtomicLong ids = new AtomicLong();
    private final ScheduledExecutorService timer;

    public PendingRequests(ScheduledExecutorService timer) {
        this.timer = timer;
    }

    public long nextId() {
        return ids.incrementAndGet();
    }

    /** A future for request {@code id} that fails after {@code timeout} unless answered. */
    public CompletableFuture<byte[]> register(long id, Duration timeout, String what) {
        CompletableFuture<byte[]> future = new CompletableFuture<>();
        pending.put(id, future);
        ScheduledFuture<?> deadline = timer.schedule(() -> fail(id, new OverlayException(
                OverlayException.Reason.TIMEOUT, what + " timed out after " + timeout.toMillis() + " ms")),
                timeout.toMillis(), TimeUnit.MILLISECONDS);
        future.whenComplete((v, e) -> {
            pending.remove(id, future);
            deadline.cancel(false);
        });
        return future;
    }

    /** Completes the request a RESPONSE or ERROR frame answers; false if nobody waits for it. */
    public boolean complete(OverlayFrame answer) {
        CompletableFuture<byte[]> future = pending.get(answer.requestId());
        if (future == null) {
            return false;
        }
        if (answer.kind() == OverlayFrame.Kind.ERROR) {
            return future.completeExceptionally(new OverlayException(OverlayException.Reason.REMOTE_ERROR,
                    new String(answer.payload(), StandardCharsets.UTF_8)));
        }
        return future.complete(answer.payload());
    }

    public void fail(long id, OverlayException e) {
        CompletableFuture<byte[]> future = pending.get(id);
        if (future != null) {
            future.completeExceptionally(e);
        }
    }

    public void failAll(OverlayException e) {
        pending.values().forEach(f -> f.completeExceptionally(e));
    }

    public int size() {
        return pending.size();
    }
}
