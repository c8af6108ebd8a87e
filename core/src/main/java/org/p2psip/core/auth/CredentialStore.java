package org.p2psip.core.auth;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.function.Function;

import org.p2psip.core.dht.Dht;
import org.p2psip.core.dht.VersionedValue;
import org.p2psip.core.location.AddressOfRecord;

/**
 * Users' credentials in the DHT, under keys of their own beside the
 * bindings ({@link AuthKeys}), so that every node authenticates every user
 * and credentials are replicated like bindings. An index spread over
 * {@link AuthKeys#INDEX_SHARDS} keys lists who has credentials, since the
 * DHT itself cannot be scanned.
 *
 * <p>Every write is a version-conditional read-modify-write, retried on a
 * conflict, so two administrators adding users at once lose neither.
 */
public final class CredentialStore {

    /** Credentials do not lapse; the DHT needs an expiry all the same. */
    static final Duration KEPT_FOR = Duration.ofDays(100 * 365L);
    private static final int MAX_ATTEMPTS = 16;
    /** Writes of one batch in flight at once. */
    private static final int WINDOW = 256;

    private final Dht dht;
    private final Clock clock;

    public CredentialStore(Dht dht, Clock clock) {
        this.dht = Objects.requireNonNull(dht, "dht");
        this.clock = Objects.requireNonNull(clock, "clock");
    }

    /** {@code aor}'s credentials, if it has any. Undecodable values count as none. */
    public CompletableFuture<Optional<UserCredentials>> find(AddressOfRecord aor) {
        return dht.get(AuthKeys.credentials(aor)).thenApply(v -> v.flatMap(CredentialStore::decode));
    }

    /** Adds or replaces one user's credentials and lists them in the index. */
    public CompletableFuture<Void> put(UserCredentials credentials) {
        return putAll(List.of(credentials));
    }

    /**
     * Adds or replaces every user of {@code batch}, then updates each index
     * shard they fall in once. Completes when all are written.
     */
    public CompletableFuture<Void> putAll(List<UserCredentials> batch) {
        CompletableFuture<Void> writes = CompletableFuture.completedFuture(null);
        for (int from = 0; from < batch.size(); from += WINDOW) {
            List<UserCredentials> window = batch.subList(from, Math.min(batch.size(), from + WINDOW));
            writes = writes.thenCompose(x -> CompletableFuture.allOf(window.stream()
                    .map(c -> update(AuthKeys.credentials(c.aor()), old -> Optional.of(c.encode()), true))
                    .toArray(CompletableFuture[]::new)));
        }
        return writes.thenCompose(x -> changeIndex(batch.stream().map(UserCredentials::aor).toList(), true));
    }

    /** Removes {@code aor}'s credentials; completes with whether it had any. */
    public CompletableFuture<Boolean> remove(AddressOfRecord aor) {
        String key = AuthKeys.credentials(aor);
        return dht.get(key).thenCompose(v -> {
            CompletableFuture<Void> removed = v.isEmpty() ? CompletableFuture.completedFuture(null)
                    : update(key, old -> Optional.empty(), false);
            return removed.thenCompose(x -> changeIndex(List.of(aor), false)).thenApply(x -> v.isPresent());
        });
    }

    /** Every user in the index, sorted by AOR. */
    public CompletableFuture<List<AddressOfRecord>> list() {
        List<CompletableFuture<List<AddressOfRecord>>> shards = new ArrayList<>();
        for (int i = 0; i < AuthKeys.INDEX_SHARDS; i++) {
            shards.add(dht.get(AuthKeys.indexShard(i)).thenApply(v -> v.map(x -> decodeIndex(x.value())).orElse(List.of())));
        }
        return CompletableFuture.allOf(shards.toArray(CompletableFuture[]::new)).thenApply(x -> {
            List<AddressOfRecord> all = new ArrayList<>();
            shards.forEach(s -> all.addAll(s.join()));
            all.sort(Comparator.comparing(AddressOfRecord::key));
            return all;
        });
    }

    private CompletableFuture<Void> changeIndex(List<AddressOfRecord> aors, boolean add) {
        Map<String, List<AddressOfRecord>> byShard = new LinkedHashMap<>();
        for (AddressOfRecord a : aors) {
            byShard.computeIfAbsent(AuthKeys.indexShard(a), k -> new ArrayList<>()).add(a);
        }
        return CompletableFuture.allOf(byShard.entrySet().stream().map(e -> update(e.getKey(), old -> {
            TreeMap<String, AddressOfRecord> members = new TreeMap<>();
            old.map(CredentialStore::decodeIndex).orElse(List.of()).forEach(a -> members.put(a.key(), a));
            for (AddressOfRecord a : e.getValue()) {
                if (add) {
                    members.put(a.key(), a);
                } else {
                    members.remove(a.key());
                }
            }
            return members.isEmpty() ? Optional.empty() : Optional.of(encodeIndex(members.values()));
        }, false)).toArray(CompletableFuture[]::new));
    }

    /**
     * Rewrites {@code key} with {@code change} of its current value (empty:
     * remove), retrying on conflicts. With {@code guessAbsent} the first
     * attempt writes without reading, which saves a round trip for a key
     * that is usually new.
     */
    private CompletableFuture<Void> update(String key, Function<Optional<byte[]>, Optional<byte[]>> change,
                                           boolean guessAbsent) {
        if (guessAbsent) {
            return attempt(key, change, 1, Dht.ABSENT, Optional.empty(), true);
        }
        return dht.get(key).thenCompose(v -> attempt(key, change, 1, v.map(VersionedValue::version).orElse(Dht.ABSENT),
                v.map(VersionedValue::value), false));
    }

    private CompletableFuture<Void> attempt(String key, Function<Optional<byte[]>, Optional<byte[]>> change, int n,
                                            long version, Optional<byte[]> current, boolean guessedAbsent) {
        Optional<byte[]> next = change.apply(current);
        CompletableFuture<Boolean> write;
        if (next.isPresent()) {
            write = dht.putIfVersion(key, version, next.get(), clock.instant().plus(KEPT_FOR));
        } else if (version == Dht.ABSENT) {
            write = guessedAbsent ? CompletableFuture.completedFuture(false) : CompletableFuture.completedFuture(true);
        } else {
            write = dht.removeIfVersion(key, version);
        }
        return write.thenCompose(done -> {
            if (done) {
                return CompletableFuture.<Void>completedFuture(null);
            }
            if (n >= MAX_ATTEMPTS) {
                return CompletableFuture.<Void>failedFuture(new IllegalStateException(
                        "the DHT key " + key + " kept changing; gave up after " + n + " attempts"));
            }
            return dht.get(key).thenCompose(v -> attempt(key, change, n + 1,
                    v.map(VersionedValue::version).orElse(Dht.ABSENT), v.map(VersionedValue::value), false));
        });
    }

    private static Optional<UserCredentials> decode(VersionedValue v) {
        try {
            return Optional.of(UserCredentials.decode(v.value()));
        } catch (IllegalArgumentException e) {
            return Optional.empty();
        }
    }

    static byte[] encodeIndex(Collection<AddressOfRecord> aors) {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream(32 * aors.size() + 4);
        try (DataOutputStream out = new DataOutputStream(bytes)) {
            out.writeInt(aors.size());
            for (AddressOfRecord a : aors) {
                out.writeUTF(a.user());
                out.writeUTF(a.host());
                out.writeInt(a.port().orElse(-1));
            }
        } catch (IOException e) {
            throw new IllegalStateException("writing to memory cannot fail", e);
        }
        return bytes.toByteArray();
    }

    static List<AddressOfRecord> decodeIndex(byte[] value) {
        List<AddressOfRecord> aors = new ArrayList<>();
        try (DataInputStream in = new DataInputStream(new ByteArrayInputStream(value))) {
            int n = in.readInt();
            for (int i = 0; i < n; i++) {
                String user = in.readUTF();
                String host = in.readUTF();
                int port = in.readInt();
                aors.add(new AddressOfRecord(user, host, port < 0 ? OptionalInt.empty() : OptionalInt.of(port)));
            }
        } catch (IOException | IllegalArgumentException e) {
            // A damaged shard lists what could be read; the credentials themselves are untouched.
        }
        return aors;
    }
}
