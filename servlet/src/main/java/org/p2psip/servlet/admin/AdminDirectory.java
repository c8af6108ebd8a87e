package org.p2psip.servlet.admin;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.function.Supplier;

import org.p2psip.core.dht.Dht;
import org.p2psip.core.dht.VersionedValue;
import org.p2psip.core.net.HostPort;

/**
 * The cluster's admin endpoints, kept in the DHT so that {@code p2psip
 * status} given one of them finds the others: one value, to which every
 * node with an endpoint writes its own entry (its admin and SIP address)
 * every {@link #REFRESH}, dropping the entries nobody refreshed for
 * {@link #STALE}. Writes are compare-and-set on the value's version, so two
 * nodes refreshing at once both land; a node that stopped falls out within
 * {@link #STALE}.
 *
 * <p>Its key has a {@code #} and no {@code @}, as the trust data's keys
 * do ({@code AuthKeys}), so no AOR can name it.
 */
public final class AdminDirectory {

    static final String KEY = "cluster#admin-endpoints";
    public static final Duration REFRESH = Duration.ofSeconds(30);
    public static final Duration STALE = Duration.ofSeconds(90);
    private static final int ATTEMPTS = 4;

    /** One node: where its admin endpoint and its SIP listen, and when it last said so. */
    public record Entry(HostPort admin, HostPort sip, Instant seen) {
        public Entry {
            Objects.requireNonNull(admin, "admin");
            Objects.requireNonNull(sip, "sip");
            Objects.requireNonNull(seen, "seen");
        }
    }

    private final Dht dht;
    private final HostPort admin;
    private final HostPort sip;
    private final Supplier<Instant> clock;

    public AdminDirectory(Dht dht, HostPort admin, HostPort sip, Supplier<Instant> clock) {
        this.dht = dht;
        this.admin = admin;
        this.sip = sip;
        this.clock = clock;
    }

    /** Writes this node's entry afresh; completes false when every attempt met a concurrent write. */
    public CompletableFuture<Boolean> refresh() {
        return attempt(ATTEMPTS);
    }

    private CompletableFuture<Boolean> attempt(int left) {
        Instant now = clock.get();
        return dht.get(KEY).thenCompose(current -> {
            List<Entry> next = merged(current.map(v -> decode(v.value())).orElse(List.of()),
                    new Entry(admin, sip, now), now);
            long version = current.map(VersionedValue::version).orElse(Dht.ABSENT);
            return dht.putIfVersion(KEY, version, encode(next), now.plus(STALE));
        }).thenCompose(written -> written || left <= 1 ? CompletableFuture.completedFuture(written)
                : attempt(left - 1));
    }

    /** The entries refreshed within {@link #STALE}, this node's among them once it has written. */
    public CompletableFuture<List<Entry>> live() {
        Instant now = clock.get();
        return dht.get(KEY).thenApply(v -> v.map(value -> fresh(decode(value.value()), now)).orElse(List.of()));
    }

    /** {@code current} without stale entries and without {@code self}'s old one, then {@code self}. */
    static List<Entry> merged(List<Entry> current, Entry self, Instant now) {
        List<Entry> out = new ArrayList<>();
        for (Entry e : fresh(current, now)) {
            if (!e.admin().equals(self.admin())) {
                out.add(e);
            }
        }
        out.add(self);
        return out;
    }

    private static List<Entry> fresh(List<Entry> entries, Instant now) {
        Instant cutoff = now.minus(STALE);
        return entries.stream().filter(e -> e.seen().isAfter(cutoff)).toList();
    }

    /** One line per entry: admin, SIP, when seen (epoch milliseconds). */
    static byte[] encode(List<Entry> entries) {
        StringBuilder b = new StringBuilder();
        for (Entry e : entries) {
            b.append(e.admin()).append(' ').append(e.sip()).append(' ').append(e.seen().toEpochMilli()).append('\n');
        }
        return b.toString().getBytes(StandardCharsets.UTF_8);
    }

    /** The entries of {@code value}; a line that does not parse is skipped, not fatal. */
    static List<Entry> decode(byte[] value) {
        List<Entry> out = new ArrayList<>();
        for (String line : new String(value, StandardCharsets.UTF_8).split("\n")) {
            parse(line).ifPresent(out::add);
        }
        return out;
    }

    private static Optional<Entry> parse(String line) {
        String[] f = line.strip().split(" ");
        if (f.length != 3) {
            return Optional.empty();
        }
        try {
            return Optional.of(new Entry(HostPort.parse(f[0]), HostPort.parse(f[1]),
                    Instant.ofEpochMilli(Long.parseLong(f[2]))));
        } catch (IllegalArgumentException e) {
            return Optional.empty();
        }
    }
}
