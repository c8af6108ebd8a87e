package org.p2psip.core.auth;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Instant;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;

import org.p2psip.core.dht.Dht;
import org.p2psip.core.dht.VersionedValue;
import org.p2psip.core.location.AddressOfRecord;

/**
 * Replay protection that holds across the cluster (RFC 7616 §3.4's nonce
 * count): the counts each user has used with each nonce live in the DHT,
 * one small value per user and nonce that lapses with the nonce, so a
 * response accepted by one node is refused by every other if it comes
 * again — unless it comes as a copy of the very request that used it
 * ({@link NonceCountRecord}): a stateless cluster has no shared server
 * transaction to absorb such copies, so this record stands in for one. The
 * cost is one conditional write per authenticated request, whatever the
 * number of users; keyed by user as well as nonce, phones sharing nothing
 * never contend for one key.
 */
public final class NonceCountStore {

    private static final int MAX_ATTEMPTS = 8;

    private final Dht dht;

    public NonceCountStore(Dht dht) {
        this.dht = Objects.requireNonNull(dht, "dht");
    }

    /**
     * A fingerprint of a request's transaction as RFC 3261 §17.2.3 matches
     * it: the top Via's branch and sent-by, and the method (ACK excepted,
     * which never carries credentials here). Never 0.
     */
    public static long transactionOf(String branch, String sentBy, String method) {
        try {
            MessageDigest sha = MessageDigest.getInstance("SHA-256");
            for (String part : new String[] {branch, sentBy, method}) {
                sha.update(String.valueOf(part).getBytes(StandardCharsets.UTF_8));
                sha.update((byte) 0);
            }
            long fingerprint = ByteBuffer.wrap(sha.digest()).getLong();
            return fingerprint == 0 ? 1 : fingerprint;
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("every Java platform has SHA-256", e);
        }
    }

    /**
     * Records that {@code user} used {@code nc} with {@code nonce} in the
     * request of {@code transaction}. Completes with {@code true} when this
     * is the first use of that count or a copy of the request that made it
     * ({@link NonceCountRecord#isCopy}), {@code false} for a replay (or when
     * the key kept changing under us, which the caller answers like a stale
     * nonce).
     *
     * @param transaction the request's {@link #transactionOf} fingerprint
     * @param now         when the request arrived
     * @param keepUntil   when the nonce stops being fresh; the record is not needed after
     */
    public CompletableFuture<Boolean> admit(AddressOfRecord user, String nonce, long nc, long transaction,
                                            Instant now, Instant keepUntil) {
        Optional<NonceCountRecord> first = NonceCountRecord.EMPTY.use(nc, transaction, now);
        if (first.isEmpty()) {
            return CompletableFuture.completedFuture(false);
        }
        String key = AuthKeys.nonceCounts(user, nonce);
        // Most responses are the first with their nonce (a phone answering a challenge): write without reading.
        return dht.putIfVersion(key, Dht.ABSENT, first.get().encode(), keepUntil)
                .thenCompose(written -> written ? CompletableFuture.completedFuture(true)
                        : retry(key, nc, transaction, now, keepUntil, 2));
    }

    private CompletableFuture<Boolean> retry(String key, long nc, long transaction, Instant now, Instant keepUntil,
                                             int attempt) {
        return dht.get(key).thenCompose(stored -> {
            NonceCountRecord record = stored.map(v -> NonceCountRecord.decode(v.value()))
                    .orElse(NonceCountRecord.EMPTY);
            if (record.isCopy(nc, transaction, now)) {
                return CompletableFuture.completedFuture(true);
            }
            Optional<NonceCountRecord> next = record.use(nc, transaction, now);
            if (next.isEmpty()) {
                return CompletableFuture.completedFuture(false);
            }
            long version = stored.map(VersionedValue::version).orElse(Dht.ABSENT);
            return dht.putIfVersion(key, version, next.get().encode(), keepUntil).thenCompose(written -> {
                if (written) {
                    return CompletableFuture.completedFuture(true);
                }
                return attempt >= MAX_ATTEMPTS ? CompletableFuture.completedFuture(false)
                        : retry(key, nc, transaction, now, keepUntil, attempt + 1);
            });
        });
    }
}
