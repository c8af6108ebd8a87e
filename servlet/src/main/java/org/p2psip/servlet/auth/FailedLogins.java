package org.p2psip.servlet.auth;

import java.net.InetAddress;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Predicate;

import javax.sip.message.Request;

import org.p2psip.core.auth.LoginFailures;
import org.p2psip.core.dht.Dht;
import org.p2psip.core.dht.VersionedValue;
import org.p2psip.core.location.AddressOfRecord;
import org.p2psip.servlet.sip.ClientSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Online guessing held back ({@link LoginFailures}): every wrong digest
 * answer for a user from an address is counted in the DHT, beside the
 * user's credentials, so every node of the cluster counts the same
 * failures; once they reach the threshold, answers for that user from that
 * address are refused unheard (403) for a wait that doubles with each
 * further failure, and one WARN names the address. Other addresses, the
 * user's own phones among them, are not affected.
 *
 * <p>Only failures cost a DHT write; the check on each answer reads what
 * this node learnt when it counted one. A guesser spread over the nodes
 * meets a refusal at each node from its next failure there on.
 */
public final class FailedLogins {

    private static final Logger LOG = LoggerFactory.getLogger(FailedLogins.class);
    private static final int ATTEMPTS = 4;
    private static final int MAX_REFUSED = 10_000;

    private final Dht dht;
    private final Predicate<InetAddress> trusted;
    private final Clock clock;
    /** Refusals this node knows of: {@link LoginFailures#key} to the instant they end. */
    private final ConcurrentHashMap<String, Instant> refused = new ConcurrentHashMap<>();

    public FailedLogins(Dht dht, Predicate<InetAddress> trusted, Clock clock) {
        this.dht = dht;
        this.trusted = trusted;
        this.clock = clock;
    }

    /** How long answers for {@code user} from {@code request}'s client are still refused; empty if they are not. */
    public Optional<Duration> refusal(AddressOfRecord user, Request request) {
        String key = LoginFailures.key(user, ClientSource.of(request, trusted).getAddress());
        Instant until = refused.get(key);
        if (until == null) {
            return Optional.empty();
        }
        Instant now = clock.instant();
        if (!now.isBefore(until)) {
            refused.remove(key, until);
            return Optional.empty();
        }
        return Optional.of(Duration.between(now, until));
    }

    /** {@code request} answered a challenge for {@code user} wrongly; counted in the background. */
    public void failed(AddressOfRecord user, Request request) {
        InetAddress source = ClientSource.of(request, trusted).getAddress();
        count(user, source, ATTEMPTS).exceptionally(e -> {
            LOG.debug("a failed login for {} from {} was not counted: {}", user, source.getHostAddress(),
                    e.toString());
            return null;
        });
    }

    private CompletableFuture<Void> count(AddressOfRecord user, InetAddress source, int attempts) {
        String key = LoginFailures.key(user, source);
        Instant now = clock.instant();
        return dht.get(key).thenCompose(current -> {
            LoginFailures next = LoginFailures.after(current.flatMap(v -> LoginFailures.decode(v.value())), now);
            long version = current.map(VersionedValue::version).orElse(Dht.ABSENT);
            return dht.putIfVersion(key, version, next.encode(), next.keepUntil()).thenCompose(written -> {
                if (!written) {
                    return attempts > 1 ? count(user, source, attempts - 1) : CompletableFuture.completedFuture(null);
                }
                next.refusedUntil().ifPresent(until -> remember(key, until));
                if (next.reachedThreshold()) {
                    LOG.warn("{} failed logins for {} from {} since {}; its answers are refused from now on, "
                            + "for a second at first and twice as long after each further failure, at most {} min",
                            next.count(), user, source.getHostAddress(), next.first(),
                            LoginFailures.MAX_BACKOFF.toMinutes());
                }
                return CompletableFuture.completedFuture(null);
            });
        });
    }

    private void remember(String key, Instant until) {
        if (refused.size() >= MAX_REFUSED) {
            Instant now = clock.instant();
            refused.values().removeIf(u -> !now.isBefore(u));
            if (refused.size() >= MAX_REFUSED) {
                return;
            }
        }
        refused.merge(key, until, (a, b) -> a.isAfter(b) ? a : b);
    }
}
