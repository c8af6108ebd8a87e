package org.p2psip.dht.chord;

import java.math.BigInteger;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Function;
import java.util.function.LongSupplier;

import org.p2psip.core.overlay.HandOverPacing;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Moves keys between nodes as the ring changes: carries out the
 * {@link CustodyAction}s its {@link RangeCustody} decides on — fetching a
 * gained range (walking the ring for a node that holds all of it), handing
 * a lost range back, pushing owned keys to the replicas (anti-entropy
 * included) — and answers the fetches and hand-backs of other nodes. Runs
 * on the node's owner thread only.
 */
final class KeyMover {

    /**
     * How many nodes back a hand-back is passed on: one per node that came
     * back into the same gap at once (adjacent nodes stalled together).
     */
    static final int HAND_BACK_HOPS = 8;
    /** How many nodes a joiner asks, walking clockwise, for one that holds all of its range. */
    private static final int FETCH_WALK = 64;
    /**
     * The most bytes of entries in one message (a fetch page, a hand-back or
     * push frame): small enough to cross and be merged well within the RPC
     * timeout on a loaded node, so that moving a large range is many short
     * calls rather than one that times out and starts over.
     */
    static final long FRAME_BYTES = 256 * 1024;
    /** The most entries in one fetch page. */
    static final int PAGE_ENTRIES = 2048;
    /** How many times one fetch page is asked for before the fetch fails (and starts over next round). */
    private static final int PAGE_ATTEMPTS = 3;
    /** A bound on the pages of one range fetch; each page moves at least one entry. */
    private static final int MAX_PAGES = 1 << 16;

    private static final Logger LOG = LoggerFactory.getLogger(KeyMover.class);

    private final RingState ring;
    private final IdSpace space;
    private final RangeCustody custody;
    private final KeyStore store;
    private final ChordClient client;
    private final RingMaintenance maintenance;
    private final FencedWrites writes;
    private final OwnerThread owner;
    private final Clock clock;
    private final int maxPayloadBytes;
    private final Runnable beforeRingChange;
    private final HandOverPacing pacing;
    private final LongSupplier nanos;
    /** Per replica, the change mark as of which it has every key pushed to it (owner thread). */
    private final Map<NodeRef, Long> pushedUpTo = new HashMap<>();
    /** The range last logged as served, for DEBUG lines on each change. */
    private String lastServing = "";
    /** Nodes that copied a range from here ahead of their join, and when (owner thread). */
    private final Map<NodeRef, CopyTaken> copiesTaken = new HashMap<>();
    /** The range copied ahead of the join, until the first catch-up fetch takes it (owner thread). */
    private Optional<CopyAhead> copied = Optional.empty();
    /** Whether a copy ahead of the join may still be taken: not once the join has gone ahead. */
    private boolean copyAheadOpen = true;
    /** The lower end of the range being copied ahead of the join, once known. */
    private Optional<BigInteger> copyingFrom = Optional.empty();

    /**
     * @param maxPayloadBytes  the largest overlay payload; keys go in frames of half that, {@link #FRAME_BYTES} at most
     * @param beforeRingChange runs first on every ring change (the route cache goes stale)
     */
    KeyMover(RingState ring, RangeCustody custody, KeyStore store, ChordClient client, RingMaintenance maintenance,
             FencedWrites writes, OwnerThread owner, Clock clock, int maxPayloadBytes, Runnable beforeRingChange) {
        this(ring, custody, store, client, maintenance, writes, owner, clock, maxPayloadBytes, beforeRingChange,
                HandOverPacing.NONE, () -> 0);
    }

    /**
     * @param pacing how long to pause between two pages or frames of a range moving, while this node lags
     * @param nanos  the monotonic clock the pacing runs on
     */
    KeyMover(RingState ring, RangeCustody custody, KeyStore store, ChordClient client, RingMaintenance maintenance,
             FencedWrites writes, OwnerThread owner, Clock clock, int maxPayloadBytes, Runnable beforeRingChange,
             HandOverPacing pacing, LongSupplier nanos) {
        this.pacing = pacing;
        this.nanos = nanos;
        this.ring = ring;
        this.space = ring.space();
        this.custody = custody;
        this.store = store;
        this.client = client;
        this.maintenance = maintenance;
        this.writes = writes;
        this.owner = owner;
        this.clock = clock;
        this.maxPayloadBytes = maxPayloadBytes;
        this.beforeRingChange = beforeRingChange;
    }

    /** After stabilize or rectify changed the ring as this node sees it. */
    void ringChanged() {
        beforeRingChange.run();
        perform(custody.ringChanged());
        logServing();
    }

    /** Carries out what the custody decided, in order. */
    void perform(List<CustodyAction> actions) {
        for (CustodyAction action : actions) {
            if (action instanceof CustodyAction.AskPredecessor) {
                maintenance.checkPredecessor();
            } else if (action instanceof CustodyAction.HandBack h) {
                handBack(h);
            } else if (action instanceof CustodyAction.Fetch f) {
                fetch(f);
            } else if (action instanceof CustodyAction.PushOwned p) {
                pushOwned(p.targets(), p.changesOnly());
            } else if (action instanceof CustodyAction.CaughtUp c) {
                caughtUp(c);
            } else if (action instanceof CustodyAction.CutOff) {
                LOG.warn("chord node {} has lost every successor; it serves nothing while it looks for the ring",
                        ring.self().id().toString(16));
            } else if (action instanceof CustodyAction.GaveUpOnRing g) {
                LOG.warn("chord node {}: no member of the ring answered for {} rounds; it serves every key alone",
                        ring.self().id().toString(16), g.rounds());
            } else if (action instanceof CustodyAction.ServedFromCopies s) {
                // Nobody has served the whole range: its last owner is gone, and what is left of
                // it is the replicas' copies, which the successors have just pushed here.
                LOG.info("no live node holds all of ({}, {}]; serving it from the successors' copies",
                        s.from().toString(16), s.to().toString(16));
            }
        }
    }

    private void caughtUp(CustodyAction.CaughtUp c) {
        if (LOG.isDebugEnabled() && !c.was().equals(Optional.of(c.from()))) {
            LOG.debug("caught up on ({}, {}] (was from {}), holding {} values", RangeCustody.abbreviated(c.from()),
                    RangeCustody.abbreviated(ring.self().id()), c.was().map(RangeCustody::abbreviated)
                            .orElse("nothing"), store.size());
        }
        logServing();
    }

    /** At DEBUG, one line whenever the range this node serves changes: where two owners overlap shows in the logs. */
    private void logServing() {
        if (!LOG.isDebugEnabled()) {
            return;
        }
        String now = custody.serving();
        if (!now.equals(lastServing)) {
            LOG.debug("serving {} (predecessor {}, successor {})", now, ring.predecessor().map(Object::toString)
                    .orElse("none"), ring.successor());
            lastServing = now;
        }
    }

    // ---- a gained range ----------------------------------------------------------------------

    /**
     * Asks every source for the range; a joiner whose sources hold only
     * copies then walks the ring for a node that holds all of it. The
     * custody decides what the outcome means; a fetch that fails is tried
     * again next round. A source this node copied the range from before it
     * joined ({@link #copyAhead}) is asked only for what changed since; if
     * that cannot be told, or the fetch fails, the copy is dropped and the
     * next round fetches the range whole, so no removal is missed.
     */
    private void fetch(CustodyAction.Fetch f) {
        Optional<CopyAhead> ahead = copied;
        copied = Optional.empty();
        Map<NodeRef, Long> marks = ahead.filter(c -> c.from().equals(f.from()) && c.to().equals(f.to()))
                .map(CopyAhead::marks).orElse(Map.of());
        if (ahead.isPresent() && marks.isEmpty()) {
            drop(ahead.get(), "the range to take over is no longer the one copied");
        }
        List<CompletableFuture<Fetched>> answers = f.sources().stream()
                .map(s -> marks.containsKey(s) ? fetchChanges(s, f.from(), f.to(), marks.get(s))
                        : fetchWhole(s, f.from(), f.to()))
                .toList();
        CompletableFuture.allOf(answers.toArray(CompletableFuture[]::new))
                .thenCompose(v -> {
                    List<Fetched> got = answers.stream().map(CompletableFuture::join).toList();
                    if (f.settledBy(got.stream().map(Fetched::whole).toList())) {
                        return CompletableFuture.completedFuture(RangeCustody.WholeRangeSearch.FOUND);
                    }
                    return walkForWhole(f.from(), f.to(), got.get(got.size() - 1).successor(), FETCH_WALK);
                })
                .whenCompleteAsync((search, e) -> {
                    if (e != null) {
                        if (!marks.isEmpty()) {
                            drop(ahead.get(), "bringing it up to date failed");
                        }
                        custody.fetchFailed();
                        LOG.debug("fetching ({}, {}] from {} failed: {}", f.from(), f.to(), f.sources(), e.toString());
                        return;
                    }
                    if (!marks.isEmpty()) {
                        LOG.debug("took ({}, {}] over with the changes since the copy made before joining",
                                RangeCustody.abbreviated(f.from()), RangeCustody.abbreviated(f.to()));
                    }
                    perform(custody.fetched(f, search));
                }, owner.executor());
    }

    /**
     * Asks node after node clockwise, from {@code at}, for the range until
     * one holds all of it. The last node to have served a key lies clockwise
     * of the key, so the walk reaches it unless it is gone (and then its
     * successor has taken its range over, replicas and all).
     */
    private CompletableFuture<RangeCustody.WholeRangeSearch> walkForWhole(BigInteger from, BigInteger to, NodeRef at,
                                                                          int left) {
        if (at.equals(ring.self())) {
            return CompletableFuture.completedFuture(RangeCustody.WholeRangeSearch.NOWHERE);
        }
        if (left <= 0) {
            return CompletableFuture.completedFuture(RangeCustody.WholeRangeSearch.GAVE_UP);
        }
        return fetchWhole(at, from, to).thenCompose(a -> a.whole()
                ? CompletableFuture.completedFuture(RangeCustody.WholeRangeSearch.FOUND)
                : walkForWhole(from, to, a.successor(), left - 1));
    }

    /**
     * Fetches {@code (from, to]} from {@code source} page by page, merging
     * each page here (newest wins) before asking for the next; the answer
     * says whether the source held the whole range on every page.
     */
    private CompletableFuture<Fetched> fetchWhole(NodeRef source, BigInteger from, BigInteger to) {
        return fetchPages(source, from, to, ChordClient.PageRequest.TAKE_OVER, Optional.empty(), Optional.empty(),
                MAX_PAGES);
    }

    /** Fetches what changed in {@code (from, to]} at {@code source} since its change {@code mark}; fails if it cannot tell. */
    private CompletableFuture<Fetched> fetchChanges(NodeRef source, BigInteger from, BigInteger to, long mark) {
        return fetchPages(source, from, to, new ChordClient.PageRequest(false, OptionalLong.of(mark)),
                Optional.empty(), Optional.empty(), MAX_PAGES);
    }

    /**
     * What one source gave for a range: whether it held all of it (on every
     * page), its successor, and its change mark when it read the first page.
     */
    private record Fetched(boolean whole, NodeRef successor, long mark) {
    }

    private CompletableFuture<Fetched> fetchPages(NodeRef source, BigInteger from, BigInteger to,
                                                  ChordClient.PageRequest request, Optional<String> after,
                                                  Optional<Fetched> soFar, int pagesLeft) {
        if (pagesLeft <= 0) {
            return CompletableFuture.failedFuture(new IllegalStateException("fetching (" + from.toString(16) + ", "
                    + to.toString(16) + "] from " + source + " took more than " + MAX_PAGES + " pages"));
        }
        return pageWithRetries(source, from, to, after, request, PAGE_ATTEMPTS).thenComposeAsync(page -> {
            if (request.copyOnly() && !copyAheadOpen) {
                // The join went ahead without the copy and what was copied is gone: merging more would
                // bring back entries removed since.
                return CompletableFuture.failedFuture(new IllegalStateException("the join went ahead"));
            }
            if (!page.told()) {
                // Only a fetch of changes can go untold: the source forgot removals made since the mark.
                return CompletableFuture.failedFuture(new IllegalStateException(source
                        + " no longer keeps the removals made since the copy began"));
            }
            page.entries().forEach(store::mergeIfNewer);
            page.removals().forEach(r -> store.removeIfNotNewer(r.key(), r.version()));
            Fetched sum = new Fetched(soFar.map(Fetched::whole).orElse(true) && page.whole(), page.successor(),
                    soFar.map(Fetched::mark).orElse(page.mark()));
            return page.next().isPresent()
                    ? paced().thenCompose(v -> fetchPages(source, from, to, request, page.next(), Optional.of(sum),
                            pagesLeft - 1))
                    : CompletableFuture.completedFuture(sum);
        }, owner.executor());
    }

    /** One page, asked again from the same mark after a timeout: what came before it is kept, not fetched anew. */
    private CompletableFuture<ChordClient.FetchPage> pageWithRetries(NodeRef source, BigInteger from, BigInteger to,
                                                                     Optional<String> after,
                                                                     ChordClient.PageRequest request,
                                                                     int attemptsLeft) {
        return client.fetchPage(source, ring.self(), from, to, after, request).exceptionallyCompose(e ->
                attemptsLeft > 1 && client.inconclusive(e) && !owner.closed()
                        ? pageWithRetries(source, from, to, after, request, attemptsLeft - 1)
                        : CompletableFuture.failedFuture(e));
    }

    /**
     * Answers one page of a fetch: the entries this node holds of {@code
     * (from, to]} after {@code after} (or what changed there since the mark
     * asked for), and whether that is the whole range. A copy taken ahead of
     * a join neither takes the range over nor waits for writes in flight:
     * the changes fetched later bring those.
     */
    CompletableFuture<ChordClient.FetchPage> pageFor(NodeRef requester, BigInteger from, BigInteger to,
                                                     Optional<String> after, ChordClient.PageRequest request) {
        boolean whole = custody.holdsWhole(from, to);
        if (whole && !request.copyOnly()) {
            yieldTo(requester);
        }
        if (request.copyOnly() && after.isEmpty()) {
            Instant now = clock.instant();
            copiesTaken.values().removeIf(c -> c.at().plus(COPY_FRESH).isBefore(now));
            copiesTaken.put(requester, new CopyTaken(from, to, now));
        }
        // A write this node accepted as owner before the requester took the range over may still be on its
        // way to the first replica; the requester must get it, so the answer waits for it.
        CompletableFuture<?>[] pending = request.copyOnly() ? new CompletableFuture<?>[0]
                : writes.pendingIn(from, to).toArray(CompletableFuture[]::new);
        return CompletableFuture.allOf(pending).thenApplyAsync(v -> {
            long mark = store.changeMark();
            return store.pageIn(from, to, clock.instant(), request.since(), after, pageBytes(), PAGE_ENTRIES)
                    .map(p -> new ChordClient.FetchPage(whole, ring.successor(), true, p.entries(), p.removals(),
                            p.next(), mark))
                    .orElseGet(() -> new ChordClient.FetchPage(whole, ring.successor(), false, List.of(), List.of(),
                            Optional.empty(), mark));
        }, owner.executor());
    }

    // ---- a range copied ahead of a join ------------------------------------------------------

    /**
     * A range a joiner began to copy from here: when it takes the range
     * over it fetches the changes since, so handing the range back to it is
     * redundant for a while.
     */
    private record CopyTaken(BigInteger from, BigInteger to, Instant at) {
    }

    /** How long after a copy began its joiner is spared the hand-back; a join takes seconds. */
    private static final Duration COPY_FRESH = Duration.ofSeconds(60);

    /** A range copied before this node joined, and each source's change mark when its copy began. */
    private record CopyAhead(BigInteger from, BigInteger to, Map<NodeRef, Long> marks) {
    }

    /**
     * Right after the join, before this node notifies its successor (which
     * stops serving the range then): copies the range it is about to take
     * over from the sources its catch-up will fetch from, while they go on
     * serving it. The catch-up then fetches only what changed since, so the
     * range goes unserved for one short transfer instead of a whole copy —
     * seconds, for a large range on a loaded machine. Never fails: without
     * the copy the catch-up fetches the range whole, as it always could.
     * Completes, with or without it, within {@code limit}.
     */
    CompletableFuture<Void> copyAhead(Duration limit) {
        CompletableFuture<Void> done = owner.compose(() -> {
            NodeRef succ = ring.successor();
            if (succ.equals(ring.self())) {
                return CompletableFuture.<Void>completedFuture(null);
            }
            return client.neighbours(succ).thenComposeAsync(nb -> {
                BigInteger to = ring.self().id();
                Optional<BigInteger> from = nb.predecessor().map(NodeRef::id)
                        .filter(p -> space.betweenOpen(p, to, succ.id()));
                List<NodeRef> sources = custody.fetchSources();
                if (from.isEmpty() || sources.isEmpty()) {
                    return CompletableFuture.<Void>completedFuture(null);
                }
                copyingFrom = from;
                ChordClient.PageRequest copy = new ChordClient.PageRequest(true, OptionalLong.empty());
                Map<NodeRef, CompletableFuture<Fetched>> copies = new LinkedHashMap<>();
                for (NodeRef s : sources) {
                    copies.put(s, fetchPages(s, from.get(), to, copy, Optional.empty(), Optional.empty(), MAX_PAGES));
                }
                return CompletableFuture.allOf(copies.values().toArray(CompletableFuture[]::new)).thenApplyAsync(v -> {
                    if (!copyAheadOpen) {
                        // Finished after the join went ahead, which dropped what was copied.
                        return null;
                    }
                    Map<NodeRef, Long> marks = new LinkedHashMap<>();
                    copies.forEach((s, f) -> marks.put(s, f.join().mark()));
                    copied = Optional.of(new CopyAhead(from.get(), to, marks));
                    LOG.debug("copied ({}, {}] ahead of the join from {}, holding {} values",
                            RangeCustody.abbreviated(from.get()), RangeCustody.abbreviated(to), sources, store.size());
                    return null;
                }, owner.executor());
            }, owner.executor());
        });
        return done.exceptionally(e -> {
            LOG.debug("copying ahead of the join failed: {}", e.toString());
            return null;
        }).completeOnTimeout(null, limit.toMillis(), TimeUnit.MILLISECONDS).thenRunAsync(() -> {
            copyAheadOpen = false;
            if (copied.isEmpty()) {
                // Cut short: a part of the copy is no base for changes, and a whole fetch would keep
                // whatever it holds that was removed since.
                copyingFrom.ifPresent(f -> drop(new CopyAhead(f, ring.self().id(), Map.of()), "it was cut short"));
            }
        }, owner.executor());
    }

    /**
     * Forgets a copy taken ahead of the join, entries and all: a whole fetch
     * only adds and updates, so entries removed at the source since would
     * otherwise stay here. This node serves none of the range yet.
     */
    private void drop(CopyAhead c, String why) {
        int dropped = store.dropIn(c.from(), c.to());
        LOG.debug("dropping the copy of ({}, {}] made ahead of the join ({} values): {}",
                RangeCustody.abbreviated(c.from()), RangeCustody.abbreviated(c.to()), dropped, why);
    }

    private long pageBytes() {
        return Math.min(FRAME_BYTES, maxPayloadBytes / 2);
    }

    /**
     * The requester has come for this node's range whole from inside it
     * ({@link RangeCustody#shouldYieldTo}): taken as its notify.
     */
    private void yieldTo(NodeRef requester) {
        if (!custody.shouldYieldTo(requester) || !ring.rectify(requester, true)) {
            return;
        }
        LOG.debug("yielding ({}, {}] to {}, which fetched it whole", custody.servedFrom()
                .map(RangeCustody::abbreviated).orElse("?"), RangeCustody.abbreviated(requester.id()), requester);
        // What this node holds whole stays so: it is the newcomer's successor, so (with two copies or more)
        // every write the newcomer acknowledges passes through here as its fence.
        ringChanged();
    }

    // ---- a lost range --------------------------------------------------------------------------

    /**
     * The range shrank: the node in front joined, or came back after a stall
     * this node took for its death. Its keys go to it — in the second case
     * the copies written here meanwhile, which it lacks. Several nodes may
     * have come back at once (adjacent nodes stalled together); it passes on
     * what belongs to those before it ({@link #handedBack}).
     */
    private void handBack(CustodyAction.HandBack h) {
        CopyTaken copy = copiesTaken.remove(h.to());
        if (copy != null && copy.from().equals(h.from()) && copy.to().equals(h.upTo())
                && !copy.at().plus(COPY_FRESH).isBefore(clock.instant())) {
            // Its catch-up fetches what changed here since its copy; the whole range again would only
            // load both nodes while the range goes unserved.
            LOG.debug("not handing ({}, {}] back to {}: it copied the range ahead of its join",
                    RangeCustody.abbreviated(h.from()), RangeCustody.abbreviated(h.upTo()), h.to());
            return;
        }
        List<StoredEntry> theirs = store.liveIn(h.from(), h.upTo(), clock.instant());
        LOG.debug("handing {} values of ({}, {}] back to {}", theirs.size(), RangeCustody.abbreviated(h.from()),
                RangeCustody.abbreviated(h.upTo()), h.to());
        sendHandBack(h.to(), theirs, HAND_BACK_HOPS);
    }

    private void sendHandBack(NodeRef to, List<StoredEntry> entries, int hopsLeft) {
        pacedFrames(entries, batch -> client.handBack(to, batch, hopsLeft)).exceptionally(e -> {
            LOG.debug("handing {} values back to {} failed: {}", entries.size(), to, e.toString());
            return null;
        });
    }

    /**
     * Copies handed back by the successor. Those of this node's range are
     * its own; those before its predecessor belong to a node further back
     * that came back at the same time as this one, and go on to the
     * predecessor. Without that, a write the successor acknowledged there
     * while it served both ranges would stay on the replicas, and the real
     * owner would answer "absent" for it.
     */
    void handedBack(List<StoredEntry> entries, int hopsLeft) {
        entries.forEach(store::mergeIfNewer);
        Optional<NodeRef> pred = ring.predecessor();
        if (pred.isPresent() && hopsLeft > 0) {
            BigInteger from = pred.get().id();
            List<StoredEntry> before = entries.stream()
                    .filter(e -> !space.betweenRightClosed(from, space.idOf(e.key()), ring.self().id())).toList();
            if (!before.isEmpty()) {
                LOG.debug("passing {} handed-back values on to {}", before.size(), pred.get());
                sendHandBack(pred.get(), before, hopsLeft - 1);
            }
        }
    }

    // ---- copies to other nodes -----------------------------------------------------------------

    /**
     * Pushes every live key this node serves to {@code targets}; {@code
     * changesOnly}, a target whose last whole push, or push of changes,
     * arrived complete gets only what changed here since it began.
     */
    private void pushOwned(List<NodeRef> targets, boolean changesOnly) {
        long mark = store.changeMark();
        Instant now = clock.instant();
        pushedUpTo.keySet().retainAll(targets);
        List<StoredEntry> owned = null;
        for (NodeRef t : targets) {
            Long since = changesOnly ? pushedUpTo.get(t) : null;
            if (since == null) {
                // Until this whole push has arrived, the next one is whole too: keys gained since the
                // last mark were stored here before it.
                pushedUpTo.remove(t);
            }
            List<StoredEntry> entries = since != null ? store.liveChangedSince(since, now, custody::serves)
                    : owned != null ? owned : (owned = store.liveWhere(now, custody::serves));
            // A push of changes counts only while no whole push has begun since (that one may fail).
            Runnable arrived = since == null ? () -> pushedUpTo.merge(t, mark, Math::max)
                    : () -> pushedUpTo.computeIfPresent(t, (k, upTo) -> Math.max(upTo, mark));
            pacedFrames(entries, batch -> client.replicate(t, batch, List.of()))
                    .thenRunAsync(arrived, owner.executor())
                    .exceptionally(e -> null);
        }
    }

    /** Pushes copies (the receiver keeps the newer of its own and each) to another node. */
    CompletableFuture<Void> push(NodeRef to, List<StoredEntry> entries) {
        return inFrames(entries, batch -> client.replicate(to, batch, List.of()));
    }

    /** Sends entries in frames well under the size bound, one {@code send} per frame, all at once. */
    private CompletableFuture<Void> inFrames(List<StoredEntry> entries,
                                             Function<List<StoredEntry>, CompletableFuture<Void>> send) {
        return CompletableFuture.allOf(frames(entries).stream().map(send).toArray(CompletableFuture[]::new));
    }

    /**
     * Sends entries in frames one after the other, each once the one before
     * has been answered (or has failed) and after the {@link #paced} pause:
     * a range handed over in the background takes one frame's room on the
     * link and at the receiver at a time, not the whole range's. Fails, at
     * the end, with the first frame's failure, if any.
     */
    private CompletableFuture<Void> pacedFrames(List<StoredEntry> entries,
                                                Function<List<StoredEntry>, CompletableFuture<Void>> send) {
        CompletableFuture<Void> chain = CompletableFuture.completedFuture(null);
        AtomicReference<Throwable> failed = new AtomicReference<>();
        boolean first = true;
        for (List<StoredEntry> frame : frames(entries)) {
            CompletableFuture<Void> before = first ? chain : chain.thenCompose(v -> paced());
            first = false;
            chain = before.thenComposeAsync(v -> send.apply(frame).exceptionally(e -> {
                failed.compareAndSet(null, e);
                return null;
            }), owner.executor());
        }
        return chain.thenCompose(v -> failed.get() == null ? CompletableFuture.<Void>completedFuture(null)
                : CompletableFuture.<Void>failedFuture(failed.get()));
    }

    /**
     * Completes on the owner thread after the pause the pacing asks for now,
     * at once while this node keeps up; fails if the node has closed.
     */
    private CompletableFuture<Void> paced() {
        Duration pause = pacing.pauseAt(nanos.getAsLong());
        if (pause.isZero()) {
            return CompletableFuture.completedFuture(null);
        }
        CompletableFuture<Void> done = new CompletableFuture<>();
        if (!owner.later(pause, () -> done.complete(null))) {
            done.completeExceptionally(new IllegalStateException("chord node is closed"));
        }
        return done;
    }

    /** Entries in frames well under the size bound. */
    private List<List<StoredEntry>> frames(List<StoredEntry> entries) {
        List<List<StoredEntry>> sent = new ArrayList<>();
        List<StoredEntry> batch = new ArrayList<>();
        long bytes = 0;
        long limit = pageBytes();
        for (StoredEntry e : entries) {
            long size = KeyStore.wireSize(e);
            if (!batch.isEmpty() && bytes + size > limit) {
                sent.add(batch);
                batch = new ArrayList<>();
                bytes = 0;
            }
            batch.add(e);
            bytes += size;
        }
        if (!batch.isEmpty()) {
            sent.add(batch);
        }
        return sent;
    }
}
