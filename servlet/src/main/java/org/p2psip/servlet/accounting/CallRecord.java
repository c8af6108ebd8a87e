package org.p2psip.servlet.accounting;

import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalInt;

/**
 * What one node saw of one call, keyed by its Call-ID: a partial row of
 * {@code acc_calls}. The node that proxies the INVITE sees when it
 * arrived, its final answer and when that went upstream; the node that
 * proxies the BYE (any live one: the balancer record-routes the dialog,
 * RFC 3261 §16.6 step 4) sees when the call was hung up. Each writes what
 * it saw and the database merges the partials into one row per call, by
 * {@link #mergedWith}'s rules, which the SQL {@code MERGE} repeats
 * ({@link AccountingSql}); so no node waits for another and no DHT
 * traffic is spent on accounting.
 *
 * <p>A call ends when it is hung up if it was answered, else when its
 * failure went upstream ({@link #endedAt}); the two are kept apart because
 * a caller may try again under the same Call-ID after a failure (a
 * redirection, §8.1.3.4; an extension refused, §8.1.3.5) and the attempt
 * that is answered then ends the call with its BYE.
 *
 * <p>Times are UTC instants cut to the millisecond, the precision stored.
 * Text is cut to its column ({@link ColumnText}).
 *
 * @param callId     the Call-ID, which identifies the call's dialogs (§8.1.1.4)
 * @param caller     the INVITE's From URI
 * @param callee     the INVITE's To URI
 * @param startedAt  when the INVITE reached the node
 * @param answeredAt when the node forwarded its 2xx upstream
 * @param byeAt      when a BYE of the call reached a node
 * @param failedAt   when the INVITE's final non-2xx answer went upstream
 * @param status     the INVITE's final status code
 * @param inviteNode the SIP address of the node that proxied the INVITE
 * @param byeNode    the SIP address of the node that proxied the BYE
 */
public record CallRecord(String callId, Optional<String> caller, Optional<String> callee, Optional<Instant> startedAt,
                         Optional<Instant> answeredAt, Optional<Instant> byeAt, Optional<Instant> failedAt,
                         OptionalInt status, Optional<String> inviteNode, Optional<String> byeNode)
        implements AccountingRecord {

    public CallRecord {
        Objects.requireNonNull(callId, "callId");
        if (callId.isBlank() || !ColumnText.fits(callId, ColumnText.LONG)) {
            throw new IllegalArgumentException("a Call-ID must be 1 to " + ColumnText.LONG
                    + " characters without control characters");
        }
        requireFit(caller, ColumnText.LONG, "caller");
        requireFit(callee, ColumnText.LONG, "callee");
        requireFit(inviteNode, ColumnText.SHORT, "inviteNode");
        requireFit(byeNode, ColumnText.SHORT, "byeNode");
        startedAt = millis(startedAt, "startedAt");
        answeredAt = millis(answeredAt, "answeredAt");
        byeAt = millis(byeAt, "byeAt");
        failedAt = millis(failedAt, "failedAt");
        Objects.requireNonNull(status, "status");
        if (status.isPresent() && (status.getAsInt() < 200 || status.getAsInt() > 699)) {
            throw new IllegalArgumentException("a final status is 200 to 699, not " + status.getAsInt());
        }
    }

    /**
     * What the node that proxied an initial INVITE saw once its final
     * answer went upstream at {@code answered}: a 2xx answers the call,
     * anything else fails it.
     */
    public static CallRecord invite(String callId, String caller, String callee, String node, Instant arrived,
                                    int status, Instant answered) {
        boolean success = status >= 200 && status < 300;
        return new CallRecord(ColumnText.fit(callId, ColumnText.LONG),
                Optional.of(ColumnText.fit(caller, ColumnText.LONG)), Optional.of(ColumnText.fit(callee, ColumnText.LONG)),
                Optional.of(arrived), success ? Optional.of(answered) : Optional.empty(), Optional.empty(),
                success ? Optional.empty() : Optional.of(answered), OptionalInt.of(status),
                Optional.of(ColumnText.fit(node, ColumnText.SHORT)), Optional.empty());
    }

    /** What the node a BYE of the call reached saw: the hang-up. */
    public static CallRecord bye(String callId, String node, Instant arrived) {
        return new CallRecord(ColumnText.fit(callId, ColumnText.LONG), Optional.empty(), Optional.empty(),
                Optional.empty(), Optional.empty(), Optional.of(arrived), Optional.empty(), OptionalInt.empty(),
                Optional.empty(), Optional.of(ColumnText.fit(node, ColumnText.SHORT)));
    }

    /**
     * The two partials of one call as one, {@code later} being the one
     * written after this. The rules, which {@link AccountingSql#mergeCall}
     * applies in the database in the same way:
     * <ul>
     *   <li>the call started, was answered and was hung up at the earliest
     *       time any partial says: a 2xx forwarded twice by forking is one
     *       answer, and a BYE retransmitted through another node, or both
     *       sides hanging up at once, one hang-up;</li>
     *   <li>it failed at the latest failure: the last attempt's;</li>
     *   <li>a 2xx status wins over any other, since the call was answered;
     *       otherwise the status of the latest failure;</li>
     *   <li>caller, callee and nodes: the later partial's where it has one.</li>
     * </ul>
     *
     * @throws IllegalArgumentException for another call's record
     */
    public CallRecord mergedWith(CallRecord later) {
        if (!callId.equals(later.callId)) {
            throw new IllegalArgumentException("records of two calls cannot be merged");
        }
        return new CallRecord(callId, later.caller.or(() -> caller), later.callee.or(() -> callee),
                earliest(startedAt, later.startedAt), earliest(answeredAt, later.answeredAt),
                earliest(byeAt, later.byeAt), latest(failedAt, later.failedAt), mergedStatus(later),
                later.inviteNode.or(() -> inviteNode), later.byeNode.or(() -> byeNode));
    }

    /** When the call ended: hung up if it was answered, else when it failed (or, not known yet, was hung up). */
    public Optional<Instant> endedAt() {
        return success(status) ? byeAt : failedAt.or(() -> byeAt);
    }

    /** From the answer to the hang-up, once both are known. */
    public Optional<Duration> duration() {
        return answeredAt.isPresent() && byeAt.isPresent()
                ? Optional.of(Duration.between(answeredAt.get(), byeAt.get())) : Optional.empty();
    }

    private OptionalInt mergedStatus(CallRecord later) {
        if (success(later.status)) {
            return later.status;
        }
        if (success(status)) {
            return status;
        }
        boolean laterFailedLast = later.failedAt.isPresent()
                && (failedAt.isEmpty() || !later.failedAt.get().isBefore(failedAt.get()));
        if (laterFailedLast) {
            return later.status;
        }
        return status.isPresent() ? status : later.status;
    }

    private static boolean success(OptionalInt status) {
        return status.isPresent() && status.getAsInt() / 100 == 2;
    }

    private static Optional<Instant> earliest(Optional<Instant> a, Optional<Instant> b) {
        if (a.isEmpty() || b.isEmpty()) {
            return a.or(() -> b);
        }
        return b.get().isBefore(a.get()) ? b : a;
    }

    private static Optional<Instant> latest(Optional<Instant> a, Optional<Instant> b) {
        if (a.isEmpty() || b.isEmpty()) {
            return a.or(() -> b);
        }
        return b.get().isAfter(a.get()) ? b : a;
    }

    private static void requireFit(Optional<String> text, int max, String name) {
        Objects.requireNonNull(text, name);
        if (text.isPresent() && !ColumnText.fits(text.get(), max)) {
            throw new IllegalArgumentException(name + " must be at most " + max
                    + " characters without control characters");
        }
    }

    private static Optional<Instant> millis(Optional<Instant> at, String name) {
        Objects.requireNonNull(at, name);
        return at.map(t -> t.truncatedTo(ChronoUnit.MILLIS));
    }
}
