package org.p2psip.core.auth;

import java.net.InetAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.Objects;
import java.util.Optional;

import org.p2psip.core.location.AddressOfRecord;

/**
 * Wrong digest answers for one user from one address, and the wait they
 * earn: none for the first {@link #THRESHOLD} - 1, then one second, doubling
 * with each further failure up to {@link #MAX_BACKOFF}. The count starts
 * again after {@link #QUIET} without a failure. An online guesser gets a
 * handful of tries an hour; the user, from any other address, is not
 * locked out (RFC 7616 §5.4 leaves limiting guesses to the server). Pure:
 * time comes in as an argument.
 */
public record LoginFailures(int count, Instant first, Instant last) {

    public static final int THRESHOLD = 10;
    public static final Duration MAX_BACKOFF = Duration.ofMinutes(15);
    public static final Duration QUIET = Duration.ofMinutes(30);

    public LoginFailures {
        Objects.requireNonNull(first, "first");
        Objects.requireNonNull(last, "last");
        if (count < 1) {
            throw new IllegalArgumentException("a failure record counts at least one failure");
        }
        if (last.isBefore(first)) {
            throw new IllegalArgumentException("the last failure comes after the first");
        }
    }

    /** The record after one more failure at {@code now}, from {@code previous} if there is one. */
    public static LoginFailures after(Optional<LoginFailures> previous, Instant now) {
        if (previous.isEmpty() || now.isAfter(previous.get().last().plus(QUIET))) {
            return new LoginFailures(1, now, now);
        }
        LoginFailures p = previous.get();
        return new LoginFailures(p.count() + 1, p.first(), now.isAfter(p.last()) ? now : p.last());
    }

    /** Until when answers from this address for this user are refused unheard; empty below the threshold. */
    public Optional<Instant> refusedUntil() {
        if (count < THRESHOLD) {
            return Optional.empty();
        }
        int doublings = Math.min(count - THRESHOLD, 20);
        Duration wait = Duration.ofSeconds(1L << doublings);
        return Optional.of(last.plus(wait.compareTo(MAX_BACKOFF) > 0 ? MAX_BACKOFF : wait));
    }

    /** Whether this failure is the one that reached the threshold: the one worth a log line. */
    public boolean reachedThreshold() {
        return count == THRESHOLD;
    }

    /** How long to keep the record: as long as it can still matter. */
    public Instant keepUntil() {
        return last.plus(QUIET);
    }

    /** Where the failures of {@code user} from {@code source} are counted: beside the user's credentials. */
    public static String key(AddressOfRecord user, InetAddress source) {
        // As AuthKeys' keys: a '#' after the last '@', so no AOR names it; the AOR's placement group.
        return user.key() + "#fail#" + source.getHostAddress();
    }

    public byte[] encode() {
        return (count + " " + first.toEpochMilli() + " " + last.toEpochMilli()).getBytes(StandardCharsets.US_ASCII);
    }

    /** The record stored as {@link #encode} wrote it; empty for anything else. */
    public static Optional<LoginFailures> decode(byte[] value) {
        String[] f = new String(value, StandardCharsets.US_ASCII).split(" ");
        if (f.length != 3) {
            return Optional.empty();
        }
        try {
            return Optional.of(new LoginFailures(Integer.parseInt(f[0]), Instant.ofEpochMilli(Long.parseLong(f[1])),
                    Instant.ofEpochMilli(Long.parseLong(f[2]))));
        } catch (IllegalArgumentException e) {
            return Optional.empty();
        }
    }
}
