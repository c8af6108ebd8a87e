package org.p2psip.core.location;

import java.time.Clock;
import java.time.Instant;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;

import org.p2psip.core.dht.Dht;
import org.p2psip.core.dht.VersionedValue;
import org.p2psip.core.location.RegisterOutcome.Accepted;
import org.p2psip.core.location.RegisterOutcome.Rejected;

/**
 * The location service of RFC 3261 §10 on a DHT: registrations are applied
 * with {@link RegistrarRules} and written back with a version-conditional
 * put, retried from a fresh read when another node wrote in between, so two
 * REGISTERs racing for one AOR on different nodes both take effect.
 *
 * <p>Nothing here blocks: every method returns at once with a future that
 * completes on whatever thread the DHT completes on.
 */
public final class LocationService {

    /** Conflicts are rare and short-lived; past this many the caller is told to retry. */
    static final int MAX_ATTEMPTS = 32;

    private final Dht dht;
    private final RegistrarPolicy policy;
    private final Clock clock;

    public LocationService(Dht dht, RegistrarPolicy policy, Clock clock) {
        this.dht = Objects.requireNonNull(dht, "dht");
        this.policy = Objects.requireNonNull(policy, "policy");
        this.clock = Objects.requireNonNull(clock, "clock");
    }

    public RegistrarPolicy policy() {
        return policy;
    }

    /** Applies a REGISTER; a rejection means nothing was written. */
    public CompletableFuture<RegisterOutcome> register(RegisterRequest request) {
        return attempt(request, 1);
    }

    /** The live bindings of {@code aor} in forwarding order (highest q first). */
    public CompletableFuture<List<Binding>> lookup(AddressOfRecord aor) {
        return dht.get(aor.key()).thenApply(v -> decode(v).targetsAt(clock.instant()));
    }

    private CompletableFuture<RegisterOutcome> attempt(RegisterRequest request, int attempt) {
        return dht.get(request.aor().key()).thenCompose(stored -> applyTo(request, stored, attempt));
    }

    /**
     * Applies the request to the stored bindings and writes the outcome back
     * if that version is still current; when it is not, goes on from the
     * value read to find out why, without reading it again.
     */
    private CompletableFuture<RegisterOutcome> applyTo(RegisterRequest request, Optional<VersionedValue> stored,
                                                       int attempt) {
        String key = request.aor().key();
        RegisterOutcome outcome = RegistrarRules.apply(request, decode(stored), policy, clock.instant());
        if (!(outcome instanceof Accepted accepted) || !accepted.changed()) {
            return CompletableFuture.completedFuture(outcome);
        }
        if (attempt > MAX_ATTEMPTS) {
            return CompletableFuture.completedFuture(Rejected.of(500, "Location update contended, retry"));
        }
        long version = stored.map(VersionedValue::version).orElse(Dht.ABSENT);
        BindingSet next = accepted.bindings();
        byte[] encoded = next.isEmpty() ? null : BindingCodec.encode(next);
        CompletableFuture<Boolean> write = next.isEmpty()
                ? (version == Dht.ABSENT ? CompletableFuture.completedFuture(true)
                                         : dht.removeIfVersion(key, version))
                : dht.putIfVersion(key, version, encoded, next.latestExpiry().orElseThrow());
        // A refused write is read again and re-applied. If it took effect
        // though its acknowledgement was lost (a DHT that retried it saw its
        // own write as a conflict), the rules meet the request's own Call-ID
        // and CSeq and leave the bindings as they are, so nothing is written
        // again and the request is done.
        return write.thenCompose(written -> written ? CompletableFuture.completedFuture(outcome)
                : dht.get(key).thenCompose(after -> applyTo(request, after, attempt + 1)));
    }

    private static BindingSet decode(Optional<VersionedValue> stored) {
        return stored.map(v -> BindingCodec.decode(v.value())).orElse(BindingSet.EMPTY);
    }
}
