package org.p2psip.loadtest.bench;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.PriorityQueue;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

/**
 * The logic of one load lane, without sockets: it starts flows as the
 * {@link OpenLoopPacer} makes them due, runs a {@link ClientTransaction}
 * for each request it sends (retransmitting over UDP, timing out after
 * Timer B/F), matches responses to transactions by the top Via branch
 * (RFC 3261 §17.1.3), and records each flow's outcome and latency (first
 * send to the final response that completes it) in {@link LaneStats}.
 *
 * <p>Time is passed in and sending goes through a {@code Consumer}, so the
 * whole lane is tested without a network or a clock. Not thread-safe: the
 * lane's event loop calls every method.
 *
 * <p>Bounds: the pacer stops after its count or duration; flows still open
 * {@code drainNanos} after the last send are counted as "unfinished"; and
 * no more than {@code maxInFlight} flows are open at once — a flow due
 * while the lane is at the limit is not sent and counts as failed
 * ("in-flight-limit"), so an overloaded target cannot make the generator
 * hoard memory without the report saying so.
 *
 * <p>With {@code honourRetryAfter}, a flow whose request gets 503 with
 * Retry-After sends it again once after that many seconds, as a phone
 * does (RFC 3261 §21.5.4); the flow's latency then includes the wait, and
 * each such retry is counted ({@link LaneStats#retriedAfter503}). A second
 * 503 fails the flow.
 */
final class LaneEngine {

    /** A flow being run. */
    private static final class Job {
        final Flow flow;
        final long startedAt;
        final List<String> branches = new ArrayList<>(2);
        boolean over;
        boolean retried;

        Job(Flow flow, long startedAt) {
            this.flow = flow;
            this.startedAt = startedAt;
        }
    }

    /** A client transaction and what it belongs to. */
    private static final class Pending {
        final ClientTransaction transaction;
        final Job job;
        final Outgoing request;
        Outgoing failureAck;
        long queuedAt;

        Pending(ClientTransaction transaction, Job job, Outgoing request) {
            this.transaction = transaction;
            this.job = job;
            this.request = request;
        }
    }

    private final FlowContext context;
    private final FlowFactory flows;
    private final long firstIndex;
    private final long stride;
    private final OpenLoopPacer pacer;
    private final boolean reliable;
    private final SipTimers timers;
    private final long drainNanos;
    private final int maxInFlight;
    private final LaneStats stats;
    private final LiveCounters live;
    private final Consumer<Outgoing> wire;
    private final Map<String, Pending> byBranch = new HashMap<>();
    /** Timer entries; an entry whose instant is no longer its transaction's next deadline is stale and skipped. */
    private record Timer(long at, Pending pending) {
    }

    private final PriorityQueue<Timer> timerQueue = new PriorityQueue<>((a, b) -> Long.compare(a.at, b.at));

    /** A request to send at {@code at}: a retry after Retry-After. */
    private record Deferred(long at, Job job, Outgoing request) {
    }

    private final PriorityQueue<Deferred> deferred = new PriorityQueue<>((a, b) -> Long.compare(a.at, b.at));
    private final boolean honourRetryAfter;
    private long sent;
    private long branchCounter;
    private int open;
    private boolean sendingDone;
    private long drainDeadline = Long.MAX_VALUE;
    private boolean finished;

    /**
     * @param firstIndex index of this lane's first flow
     * @param stride     distance between this lane's flow indices (the number of lanes)
     */
    LaneEngine(FlowContext context, FlowFactory flows, long firstIndex, long stride, OpenLoopPacer pacer,
               boolean reliable, SipTimers timers, long drainNanos, int maxInFlight, boolean honourRetryAfter,
               LaneStats stats, LiveCounters live, Consumer<Outgoing> wire) {
        this.context = context;
        this.flows = flows;
        this.firstIndex = firstIndex;
        this.stride = stride;
        this.pacer = pacer;
        this.reliable = reliable;
        this.timers = timers;
        this.drainNanos = drainNanos;
        this.maxInFlight = maxInFlight;
        this.honourRetryAfter = honourRetryAfter;
        this.stats = stats;
        this.live = live;
        this.wire = wire;
    }

    /** Whether every flow has ended (or been given up on); the lane can be closed. */
    boolean finished() {
        return finished;
    }

    /** Flows started and not yet ended. */
    int open() {
        return open;
    }

    /** Sends what is due, fires due timers, and gives up on stragglers once the drain time is over. */
    void tick(long now) {
        if (finished) {
            return;
        }
        if (!sendingDone) {
            long due = pacer.dueBy(now);
            while (sent < due) {
                startFlow(sent, now);
                sent++;
            }
            if (pacer.finished(sent, now)) {
                sendingDone = true;
                drainDeadline = now + drainNanos;
            }
        }
        Deferred d;
        while ((d = deferred.peek()) != null && d.at <= now) {
            deferred.poll();
            if (!d.job.over) {
                send(d.job, d.request, now);
            }
        }
        Timer timer;
        while ((timer = timerQueue.peek()) != null && timer.at <= now) {
            timerQueue.poll();
            Pending head = timer.pending;
            if (head.queuedAt != timer.at || byBranch.get(head.request.branch()) != head) {
                continue;
            }
            switch (head.transaction.onTimer(now)) {
                case RETRANSMIT -> {
                    stats.retransmissions++;
                    wire.accept(head.request);
                    requeue(head);
                }
                case TIMEOUT -> {
                    byBranch.remove(head.request.branch());
                    end(head.job, now, "timeout");
                }
                case TERMINATED -> byBranch.remove(head.request.branch());
                case NOTHING -> requeue(head);
            }
        }
        if (sendingDone && open == 0) {
            finish();
        } else if (now >= drainDeadline) {
            for (Pending p : new ArrayList<>(byBranch.values())) {
                if (!p.job.over) {
                    end(p.job, now, "unfinished");
                }
            }
            for (Deferred waiting : deferred) {
                end(waiting.job, now, "unfinished");
            }
            finish();
        }
    }

    /** A message arrived on the lane's socket. */
    void onMessage(SipMessage message, long now) {
        if (message.request()) {
            // Nothing is addressed to the lane's own contacts in these scenarios.
            stats.strays++;
            return;
        }
        String branch = message.topBranch();
        Pending p = branch == null ? null : byBranch.get(branch);
        if (p == null) {
            stats.strays++;
            return;
        }
        int status = message.status();
        switch (p.transaction.onResponse(status, now)) {
            case PROVISIONAL -> {
                if (p.transaction.nextDeadline() != p.queuedAt) {
                    requeue(p);
                }
            }
            case FINAL -> onFinal(p, message, now);
            case REPEAT_ACK -> {
                if (p.failureAck != null) {
                    wire.accept(p.failureAck);
                }
            }
            case IGNORED -> {
                if (status >= 200 && status < 300 && p.transaction.kind() == ClientTransaction.Kind.INVITE) {
                    Outgoing ack = p.job.flow.ackForRetransmittedTwoXx();
                    if (ack != null) {
                        wire.accept(ack);
                    }
                }
            }
        }
    }

    /** The connection under a reliable transport went away: no open flow can finish. */
    void onTransportClosed(long now) {
        for (Pending p : new ArrayList<>(byBranch.values())) {
            if (!p.job.over) {
                end(p.job, now, "connection closed");
            }
        }
        for (Deferred waiting : deferred) {
            end(waiting.job, now, "connection closed");
        }
        byBranch.clear();
        sendingDone = true;
        finish();
    }

    private void onFinal(Pending p, SipMessage response, long now) {
        Job job = p.job;
        boolean invite = p.transaction.kind() == ClientTransaction.Kind.INVITE;
        if (invite && response.status() >= 300 && job.flow instanceof CallFlow call) {
            p.failureAck = call.ackForFailure(p.request.branch(), response);
            wire.accept(p.failureAck);
            requeue(p);
        } else if (!invite) {
            byBranch.remove(p.request.branch());
        }
        if (job.over) {
            return;
        }
        Step step = job.flow.onFinal(response);
        if (step instanceof Step.Failed && response.status() == 503 && response.retryAfter() >= 0
                && honourRetryAfter && !job.retried) {
            Outgoing again = job.flow.again();
            if (again != null) {
                job.retried = true;
                stats.retriedAfter503++;
                deferred.add(new Deferred(now + TimeUnit.SECONDS.toNanos(response.retryAfter()), job, again));
                return;
            }
        }
        if (step instanceof Step.Continue c) {
            for (Outgoing once : c.once()) {
                wire.accept(once);
            }
            send(job, c.next(), now);
        } else if (step instanceof Step.Failed f) {
            end(job, now, f.reason());
        } else {
            end(job, now, null);
        }
    }

    private void startFlow(long k, long now) {
        stats.attempted++;
        live.attempted.increment();
        if (stats.firstSendAt == Long.MAX_VALUE) {
            stats.firstSendAt = now;
        }
        stats.maxLagNanos = Math.max(stats.maxLagNanos, pacer.lagNanos(k, now));
        if (open >= maxInFlight) {
            stats.fail("in-flight-limit");
            live.failed.increment();
            return;
        }
        Flow flow = flows.create(firstIndex + k * stride, context, this::nextBranch);
        Job job = new Job(flow, now);
        open++;
        send(job, flow.start(), now);
    }

    private void send(Job job, Outgoing request, long now) {
        ClientTransaction.Kind kind = "INVITE".equals(request.method())
                ? ClientTransaction.Kind.INVITE : ClientTransaction.Kind.NON_INVITE;
        Pending p = new Pending(new ClientTransaction(kind, reliable, timers, now), job, request);
        byBranch.put(request.branch(), p);
        job.branches.add(request.branch());
        requeue(p);
        wire.accept(request);
    }

    private void end(Job job, long now, String failure) {
        if (job.over) {
            return;
        }
        job.over = true;
        open--;
        for (String b : job.branches) {
            Pending p = byBranch.get(b);
            // A failed INVITE stays until Timer D to answer retransmitted finals with an ACK.
            if (p != null && p.transaction.state() != ClientTransaction.State.COMPLETED) {
                byBranch.remove(b);
            }
        }
        stats.lastDoneAt = Math.max(stats.lastDoneAt, now);
        if (failure == null) {
            stats.succeed(now - job.startedAt);
            live.succeeded.increment();
        } else {
            stats.fail(failure);
            live.failed.increment();
        }
    }

    private void requeue(Pending p) {
        long deadline = p.transaction.nextDeadline();
        if (deadline != Long.MAX_VALUE) {
            p.queuedAt = deadline;
            timerQueue.add(new Timer(deadline, p));
        }
    }

    private void finish() {
        finished = true;
        byBranch.clear();
        timerQueue.clear();
        deferred.clear();
    }

    private String nextBranch() {
        // z9hG4bK: the RFC 3261 magic cookie (§8.1.1.7); run tag and lane make branches unique across generators.
        return "z9hG4bK" + context.runTag() + "." + context.lane() + "." + Long.toString(branchCounter++, 36);
    }
}
