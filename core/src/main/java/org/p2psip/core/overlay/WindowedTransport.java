package org.p2psip.core.overlay;

import java.time.Duration;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.function.LongSupplier;

import org.p2psip.core.net.HostPort;

/**
 * An {@link OverlayTransport} that bounds the requests in flight to each
 * peer by its {@link PeerWindows} window. A request beyond the window is not
 * queued: it fails at once with {@link OverlayException.Reason#BACKED_OFF}.
 * Queued, it would wait for answers that, from a peer already that far
 * behind, come late or not at all, and take its caller's whole timeout to
 * fail; failing fast hands the choice back to the caller at once (a Chord
 * operation retries after a pause, a Kademlia lookup asks another contact)
 * while the peer works off what it has. Exempt message types (liveness
 * checks, which must reach a slow peer to tell it from a dead one) are sent
 * even past the window; within it they take a place like any other.
 */
public final class WindowedTransport implements OverlayTransport {

    private final OverlayTransport transport;
    private final PeerWindows<HostPort> windows;
    private final Set<Integer> exempt;
    private final LongSupplier nanos;

    /**
     * @param exempt message types sent whatever the window says
     * @param nanos  the monotonic clock the windows' cut spacing runs on
     */
    public WindowedTransport(OverlayTransport transport, PeerWindows<HostPort> windows, Set<Integer> exempt,
                             LongSupplier nanos) {
        this.transport = transport;
        this.windows = windows;
        this.exempt = Set.copyOf(exempt);
        this.nanos = nanos;
    }

    public PeerWindows<HostPort> windows() {
        return windows;
    }

    @Override
    public HostPort localAddress() {
        return transport.localAddress();
    }

    @Override
    public CompletableFuture<byte[]> request(HostPort peer, int type, byte[] payload, Duration timeout) {
        boolean counted = windows.tryAcquire(peer);
        if (!counted && !exempt.contains(type)) {
            return CompletableFuture.failedFuture(new OverlayException(OverlayException.Reason.BACKED_OFF,
                    "request of type " + type + " to " + peer + " held back: " + windows.inFlight(peer)
                            + " in flight, window " + windows.window(peer)));
        }
        CompletableFuture<byte[]> answer;
        try {
            answer = transport.request(peer, type, payload, timeout);
        } catch (RuntimeException e) {
            if (counted) {
                windows.released(peer);
            }
            throw e;
        }
        if (!counted) {
            return answer;
        }
        return answer.whenComplete((a, e) -> {
            if (e == null) {
                windows.answered(peer);
            } else if (reasonOf(e) == OverlayException.Reason.TIMEOUT) {
                windows.timedOut(peer, nanos.getAsLong());
            } else {
                windows.released(peer);
            }
        });
    }

    /** Whether {@code failure} is a request this transport held back. */
    public static boolean backedOff(Throwable failure) {
        return reasonOf(failure) == OverlayException.Reason.BACKED_OFF;
    }

    private static OverlayException.Reason reasonOf(Throwable failure) {
        Throwable cause = failure instanceof CompletionException && failure.getCause() != null
                ? failure.getCause() : failure;
        return cause instanceof OverlayException o ? o.reason() : null;
    }

    @Override
    public void close() {
        transport.close();
    }
}
