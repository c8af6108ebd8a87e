package org.p2psip.servlet.proxy;

import java.text.ParseException;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.IntConsumer;

import javax.sip.ClientTransaction;
import javax.sip.ServerTransaction;
import javax.sip.SipException;
import javax.sip.TransactionState;
import javax.sip.header.ViaHeader;
import javax.sip.message.Request;
import javax.sip.message.Response;

import org.p2psip.servlet.sip.SipEndpoint;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The response context of one proxied request (RFC 3261 §16.7): the server
 * transaction it arrived in, the client transactions of its branches, and
 * the best final response so far.
 *
 * <p>Targets come in groups of equal q, highest first (§16.6, where the
 * proxy may fork in parallel or in sequence): every target of a group is
 * tried at once; the next group only when the whole group failed without a
 * 2xx or 6xx.
 * A 2xx goes upstream immediately and cancels the other INVITE branches;
 * a 6xx cancels them and ends the search; otherwise, once nothing is
 * pending, {@link ResponseChoice} picks what goes upstream. A branch whose
 * client transaction times out counts as 408, one that cannot be sent as
 * 503 (§16.7 item 6 and §16.9).
 *
 * <p>Responses arrive on JAIN-SIP threads, the lookup result possibly on a
 * DHT thread, CANCEL on another: every entry point holds this object's lock.
 */
final class ResponseContext {

    /** Marks client transactions of CANCELs this proxy sent; their responses are not forwarded. */
    static final Object CANCEL_BRANCH = new Object();
    /** RFC 5626 §11.5: the edge proxy no longer holds the flow a branch went to. */
    static final int FLOW_FAILED = 430;

    private static final Logger LOG = LoggerFactory.getLogger(ResponseContext.class);

    private final SipEndpoint sip;
    private final Forwarder forwarder;
    private final ServerTransaction st;
    private final Request original;
    private final Request processed;
    private final boolean invite;
    private final boolean recordRoute;
    private final String inboundTransport;
    private final IntConsumer onFinal;

    private final Deque<List<Target>> groups = new ArrayDeque<>();
    /** The branches still waiting for a final response, with their targets (for an instance's other flows). */
    private final Map<ClientTransaction, Target> pending = new LinkedHashMap<>();
    private final Set<ClientTransaction> cancelOnProvisional = new LinkedHashSet<>();
    private Response bestResponse;
    private int bestStatus = -1;
    private String bestReason;
    private boolean finalSent;
    private boolean cancelled;
    private boolean succeeded;

    /**
     * @param onFinal told the status of the final response once it went upstream (the first 2xx of several)
     */
    ResponseContext(SipEndpoint sip, Forwarder forwarder, ServerTransaction st, Request original,
                    Request processed, boolean recordRoute, String inboundTransport, IntConsumer onFinal) {
        this.sip = sip;
        this.forwarder = forwarder;
        this.st = st;
        this.original = original;
        this.processed = processed;
        this.invite = Request.INVITE.equals(original.getMethod());
        this.recordRoute = recordRoute;
        this.inboundTransport = inboundTransport;
        this.onFinal = onFinal;
    }

    /** Starts forwarding to {@code targetGroups}, highest q group first. */
    synchronized void start(List<List<Target>> targetGroups) {
        if (finalSent) {
            return;
        }
        if (cancelled) {
            finishWith(Response.REQUEST_TERMINATED, null);
            return;
        }
        for (List<Target> g : targetGroups) {
            if (!g.isEmpty()) {
                groups.add(List.copyOf(g));
            }
        }
        continueOrFinish();
    }

    /** Answers without forwarding (404, 500 ...) unless a final response went out already. */
    synchronized void reject(int status, String reason) {
        finishWith(status, reason);
    }

    /** Answers with {@code response} (a 407 with its challenges) unless a final response went out already. */
    synchronized void respond(Response response) {
        if (finalSent) {
            return;
        }
        markFinal(response.getStatusCode());
        sip.send(st, response);
    }

    synchronized void onResponse(ClientTransaction ct, Response response) {
        int status = response.getStatusCode();
        if (status < 200) {
            if (invite && (cancelled || cancelOnProvisional.remove(ct))) {
                sendCancel(ct);
            }
            if (status == Response.TRYING || finalSent) {
                return;
            }
            Response upstream = upstreamCopy(response);
            if (upstream != null) {
                sip.send(st, upstream);
            }
            return;
        }
        Target target = pending.remove(ct);
        cancelOnProvisional.remove(ct);
        if (status < 300) {
            forwardSuccess(response);
            return;
        }
        if (target == null) {
            return;
        }
        if (status == FLOW_FAILED && !cancelled && !succeeded && target.nextFlow() != null) {
            // RFC 5626 §7: the same instance's next flow takes the failed one's place.
            launch(target.nextFlow());
        }
        if (ResponseChoice.better(status, bestStatus) || bestStatus < 0) {
            bestStatus = status;
            bestResponse = response;
            bestReason = null;
        }
        if (status >= 600 && invite) {
            groups.clear();
            cancelPending();
        }
        continueOrFinish();
    }

    /** A branch that ended without a response: 408 on timeout, 503 on transport failure. */
    synchronized void onBranchFailure(ClientTransaction ct, int status, String reason) {
        if (pending.remove(ct) == null) {
            return;
        }
        cancelOnProvisional.remove(ct);
        recordSynthetic(status, reason);
        continueOrFinish();
    }

    /** The CANCEL of RFC 3261 §16.10: stop trying, cancel every pending branch. */
    synchronized void cancel() {
        if (cancelled || finalSent) {
            return;
        }
        cancelled = true;
        groups.clear();
        if (pending.isEmpty()) {
            finishWith(Response.REQUEST_TERMINATED, null);
        } else {
            cancelPending();
        }
    }

    private void continueOrFinish() {
        while (pending.isEmpty() && !cancelled && !succeeded && bestStatus / 100 != 6 && !groups.isEmpty()) {
            for (Target t : groups.poll()) {
                launch(t);
            }
        }
        if (pending.isEmpty() && !succeeded) {
            finish();
        }
    }

    private void launch(Target target) {
        try {
            Request copy = forwarder.copyFor(original, processed, target, recordRoute, inboundTransport);
            pending.put(forwarder.send(copy, this), target);
        } catch (Exception e) {
            LOG.debug("cannot forward to {}: {}", target.uri(), e.toString());
            recordSynthetic(Response.SERVICE_UNAVAILABLE, "Next hop unreachable");
        }
    }

    private void recordSynthetic(int status, String reason) {
        if (bestStatus < 0 || ResponseChoice.better(status, bestStatus)) {
            bestStatus = status;
            bestResponse = null;
            bestReason = reason;
        }
    }

    private void forwardSuccess(Response response) {
        Response upstream = upstreamCopy(response);
        // A further 2xx from another fork, or one after a final answer went up: the server transaction is done
        // with it, so it travels statelessly (§16.7 item 5).
        ServerTransaction through = finalSent ? null : st;
        boolean first = !succeeded;
        if (first) {
            succeeded = true;
            groups.clear();
            markFinal(response.getStatusCode());
        }
        if (upstream != null) {
            sip.send(through, upstream);
        }
        if (first && invite) {
            cancelPending();
        }
    }

    private void finish() {
        if (bestStatus < 0) {
            finishWith(Response.REQUEST_TIMEOUT, null);
        } else if (bestResponse != null) {
            Response upstream = upstreamCopy(bestResponse);
            if (upstream == null) {
                finishWith(Response.SERVER_INTERNAL_ERROR, null);
                return;
            }
            int status = upstream.getStatusCode();
            if (ResponseChoice.upstreamStatus(status) != status) {
                try {
                    upstream.setStatusCode(ResponseChoice.upstreamStatus(status));
                    upstream.setReasonPhrase(ResponseChoice.upstreamReason(status));
                } catch (ParseException e) {
                    finishWith(Response.SERVER_INTERNAL_ERROR, null);
                    return;
                }
            }
            if (!finalSent) {
                markFinal(upstream.getStatusCode());
                sip.send(st, upstream);
            }
        } else {
            finishWith(ResponseChoice.upstreamStatus(bestStatus),
                    ResponseChoice.upstreamStatus(bestStatus) != bestStatus ? null : bestReason);
        }
    }

    private void finishWith(int status, String reason) {
        if (finalSent) {
            return;
        }
        markFinal(status);
        sip.reply(st, original, status, reason);
    }

    /**
     * Marks the final answer given and tells {@code onFinal}, just before
     * the answer is sent: the caller may act on the answer at once (send the
     * next request, hang up), and the call's record must carry the moment
     * the answer was decided, not the moment a busy thread came back to it.
     */
    private void markFinal(int status) {
        finalSent = true;
        onFinal.accept(status);
    }

    private void cancelPending() {
        for (ClientTransaction ct : new ArrayList<>(pending.keySet())) {
            if (ct.getState() == TransactionState.PROCEEDING) {
                sendCancel(ct);
            } else {
                // RFC 3261 §9.1: no CANCEL before a provisional response arrived.
                cancelOnProvisional.add(ct);
            }
        }
    }

    private void sendCancel(ClientTransaction ct) {
        try {
            Request cancel = ct.createCancel();
            ClientTransaction cancelTx = sip.provider().getNewClientTransaction(cancel);
            cancelTx.setApplicationData(CANCEL_BRANCH);
            cancelTx.sendRequest();
        } catch (SipException | RuntimeException e) {
            LOG.debug("could not cancel a branch: {}", e.toString());
        }
    }

    /** {@code response} without this proxy's Via (§16.7 item 3), or null if nothing is left to route it by. */
    private static Response upstreamCopy(Response response) {
        Response copy = (Response) response.clone();
        copy.removeFirst(ViaHeader.NAME);
        return copy.getHeader(ViaHeader.NAME) == null ? null : copy;
    }
}
