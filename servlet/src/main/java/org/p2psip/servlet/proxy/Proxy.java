package org.p2psip.servlet.proxy;

import java.text.ParseException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executor;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.Consumer;
import java.util.function.Supplier;

import javax.sip.ClientTransaction;
import javax.sip.InvalidArgumentException;
import javax.sip.ResponseEvent;
import javax.sip.ServerTransaction;
import javax.sip.TimeoutEvent;
import javax.sip.address.SipURI;
import javax.sip.address.URI;
import javax.sip.header.CallIdHeader;
import javax.sip.header.FromHeader;
import javax.sip.header.Header;
import javax.sip.header.MaxForwardsHeader;
import javax.sip.header.ProxyRequireHeader;
import javax.sip.header.RouteHeader;
import javax.sip.header.ToHeader;
import javax.sip.header.ViaHeader;
import javax.sip.message.Request;
import javax.sip.message.Response;

import org.p2psip.core.auth.RelayRules;
import org.p2psip.core.location.AddressOfRecord;
import org.p2psip.core.location.Binding;
import org.p2psip.core.location.LocationService;
import org.p2psip.core.location.SipUri;
import org.p2psip.servlet.accounting.AccountingRecorder;
import org.p2psip.servlet.auth.AuthOutcome;
import org.p2psip.servlet.auth.DigestAuthenticator;
import org.p2psip.servlet.sip.DhtAdmission;
import org.p2psip.servlet.sip.HeaderLists;
import org.p2psip.servlet.sip.SipEndpoint;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The stateful proxy of RFC 3261 §16 on the location service.
 *
 * <ul>
 *   <li>§16.3 validation: 416 for a non-SIP Request-URI, 483 when
 *       Max-Forwards is 0, 482 for a loop, 420 with Unsupported for any
 *       Proxy-Require option (this proxy supports none).</li>
 *   <li>§16.4 route processing: Route values naming this node are removed;
 *       a request from a strict router gets its Request-URI back from the
 *       last Route.</li>
 *   <li>§16.5 targets: with Route values left, the Request-URI as is;
 *       otherwise the bindings of the Request-URI's address-of-record;
 *       when there are none, 480, or 404 for a caller that authenticated
 *       and asked for someone who is no user here. An in-dialog request routed here by our
 *       Record-Route goes straight to its Request-URI. Requests that never
 *       carried our Route (SIPp's built-in scenarios ignore Record-Route
 *       and send ACK and BYE to the AOR) are routed by lookup like initial
 *       ones.</li>
 *   <li>ACK for a 2xx is forwarded statelessly; CANCEL is answered 200 and
 *       cancels the pending branches of its INVITE (§16.10).</li>
 *   <li>Whom it forwards for is {@link RelayRules}' decision: a local
 *       sender proves its identity with Proxy-Authorization (407 until it
 *       does, §22.3) and may then send only From its own AOR; a stranger
 *       reaches local targets only ("403 Relaying forbidden" otherwise); a
 *       request on a Route this cluster recorded continues its dialog.</li>
 *   <li>Forking is bounded by {@link BranchLimits}.</li>
 *   <li>Calls are accounted ({@link AccountingRecorder}): an initial INVITE
 *       when its final answer goes upstream, a BYE on a Route this cluster
 *       recorded when it arrives.</li>
 * </ul>
 *
 * <p>No method blocks: lookups complete asynchronously and forwarding
 * continues from their completion. The DHT work of a request outside a
 * dialog (its credentials, its target's bindings) waits only within the
 * node's {@link DhtAdmission}; beyond it the request is answered 503 with
 * Retry-After (RFC 3261 §21.5.4). In-dialog requests, ACK and CANCEL
 * finish work already admitted and are never refused.
 */
public final class Proxy {

    private static final Logger LOG = LoggerFactory.getLogger(Proxy.class);
    private static final Set<String> DIALOG_CREATING = Set.of(Request.INVITE, Request.SUBSCRIBE, Request.REFER);

    private final SipEndpoint sip;
    private final LocationService locations;
    private final ProxyTrust trust;
    private final Duration timeout;
    private final Executor completions;
    private final LoopDetection loops;
    private final Forwarder forwarder;
    private final RecordRoutes recordRoutes;
    private final AccountingRecorder accounting;
    private final DhtAdmission admission;
    private final Map<String, ResponseContext> invites = new ConcurrentHashMap<>();
    private final LongAdder branches = new LongAdder();

    /** A proxy that starts every lookup: no {@link DhtAdmission} limits it. */
    public Proxy(SipEndpoint sip, LocationService locations, ProxyTrust trust, RecordRoutes recordRoutes,
                 Duration timeout, Executor completions, AccountingRecorder accounting) {
        this(sip, locations, trust, recordRoutes, timeout, completions, DhtAdmission.unbounded(), accounting);
    }

    /**
     * @param admission how many out-of-dialog requests may wait on the DHT (credentials, location) before new
     *                  ones are refused; the node's one, shared with its registrar
     */
    public Proxy(SipEndpoint sip, LocationService locations, ProxyTrust trust, RecordRoutes recordRoutes,
                 Duration timeout, Executor completions, DhtAdmission admission, AccountingRecorder accounting) {
        this.sip = sip;
        this.admission = admission;
        this.accounting = accounting;
        this.locations = locations;
        this.trust = trust;
        this.timeout = timeout;
        this.completions = completions;
        this.loops = new LoopDetection(sip.self());
        this.recordRoutes = recordRoutes;
        this.forwarder = new Forwarder(sip, loops, trust.dialogTokens(), recordRoutes, branches);
    }

    /** Requests this proxy has sent on, one per branch, ACKs for 2xx included. */
    public long forwardedRequests() {
        return branches.sum();
    }

    /** Proxies a request other than ACK and CANCEL that arrived in {@code st}. */
    public void forward(ServerTransaction st, Request request) {
        URI requestUri = request.getRequestURI();
        if (!(requestUri instanceof SipURI)) {
            sip.reply(st, request, Response.UNSUPPORTED_URI_SCHEME, "Unsupported URI Scheme");
            return;
        }
        MaxForwardsHeader mf = (MaxForwardsHeader) request.getHeader(MaxForwardsHeader.NAME);
        if (mf != null && mf.getMaxForwards() <= 0) {
            sip.reply(st, request, Response.TOO_MANY_HOPS, "Too Many Hops");
            return;
        }
        if (loops.isLoop(request)) {
            sip.reply(st, request, Response.LOOP_DETECTED, "Loop Detected");
            return;
        }
        List<String> unsupported = proxyRequire(request);
        if (!unsupported.isEmpty()) {
            rejectExtensions(st, request, unsupported);
            return;
        }
        boolean invite = Request.INVITE.equals(request.getMethod());
        if (invite) {
            sip.reply(st, request, Response.TRYING, null);
        }
        Request processed = (Request) request.clone();
        Routing routing = processRoutes(processed);
        boolean inDialog = toTag(request) != null;
        if (inDialog && routing.recorded() && Request.BYE.equals(request.getMethod())) {
            accounting.byeArrived(request);
        }
        boolean recordRoute = !inDialog && DIALOG_CREATING.contains(request.getMethod());
        String key = invite ? transactionKey(request) : null;
        Optional<AccountingRecorder.InviteArrival> call = invite && !inDialog ? accounting.inviteArrived(request)
                : Optional.empty();
        ResponseContext context = new ResponseContext(sip, forwarder, st, request, processed, recordRoute,
                inboundTransport(request), status -> {
                    if (key != null) {
                        invites.remove(key);
                    }
                    call.ifPresent(c -> accounting.inviteAnswered(c, status));
                });
        if (key != null) {
            invites.put(key, context);
        }
        Optional<AddressOfRecord> from = localSender(request);
        RelayRules.Facts facts = new RelayRules.Facts(from.isPresent(), targetIsLocal(processed), routing.recorded());
        switch (RelayRules.beforeAuthentication(facts, trust.authenticator().isPresent())) {
            case FORBID -> context.reject(Response.FORBIDDEN, "Relaying forbidden");
            case FORWARD -> resolve(processed, routing.routedHere(), inDialog, passedThroughCluster(request), false,
                    context::start, context::reject, refusal(inDialog, request, context));
            case AUTHENTICATE -> authenticate(request, processed, routing, inDialog, from.orElseThrow(), context);
        }
    }

    /** Checks a local sender's Proxy-Authorization, then forwards, challenges (407) or refuses (403). */
    private void authenticate(Request request, Request processed, Routing routing, boolean inDialog,
                              AddressOfRecord from, ResponseContext context) {
        String realm = from.host();
        Optional<Runnable> refusal = refusal(inDialog, request, context);
        Optional<CompletableFuture<AuthOutcome>> admitted = dhtWork(
                () -> trust.authenticator().orElseThrow().authenticate(request, true, realm), refusal.isPresent());
        if (admitted.isEmpty()) {
            refusal.orElseThrow().run();
            return;
        }
        CompletableFuture<AuthOutcome> done = admitted.get();
        Runnable next = () -> {
            AuthOutcome outcome;
            try {
                outcome = done.join();
            } catch (RuntimeException e) {
                LOG.warn("authenticating a {} from {} failed: {}", request.getMethod(), from,
                        String.valueOf(e.getCause() != null ? e.getCause() : e));
                context.reject(Response.SERVER_INTERNAL_ERROR, "Credential store failed");
                return;
            }
            if (outcome instanceof AuthOutcome.Challenge c) {
                context.respond(challenge(request, realm, c.stale()));
            } else if (outcome instanceof AuthOutcome.Refused r) {
                context.reject(Response.FORBIDDEN, r.reason());
            } else if (RelayRules.afterAuthentication(((AuthOutcome.Authenticated) outcome).user(), Optional.of(from))
                    == RelayRules.Action.FORBID) {
                context.reject(Response.FORBIDDEN, "Forbidden: From does not match the credentials");
            } else {
                DigestAuthenticator.consume(processed, realm);
                resolve(processed, routing.routedHere(), inDialog, passedThroughCluster(request), true,
                        context::start, context::reject, refusal);
            }
        };
        if (done.isDone()) {
            next.run();
        } else {
            done.whenCompleteAsync((o, e) -> next.run(), completions);
        }
    }

    private Response challenge(Request request, String realm, boolean stale) {
        try {
            Response r = sip.response(Response.PROXY_AUTHENTICATION_REQUIRED, request, null);
            trust.authenticator().orElseThrow().challenge(request, r, sip.headers(), realm, stale);
            return r;
        } catch (ParseException e) {
            throw new IllegalStateException("a challenge this node writes must parse", e);
        }
    }

    /** The From AOR, canonical, when it is in a served domain. */
    private Optional<AddressOfRecord> localSender(Request r) {
        FromHeader from = (FromHeader) r.getHeader(FromHeader.NAME);
        if (from == null || from.getAddress() == null || !(from.getAddress().getURI() instanceof SipURI)) {
            return Optional.empty();
        }
        try {
            return trust.domains().canonical(SipUri.parse(from.getAddress().getURI().toString()).toAddressOfRecord());
        } catch (IllegalArgumentException e) {
            return Optional.empty();
        }
    }

    /** Whether the next hop (the top Route left after ours, else the Request-URI) is in a served domain. */
    private boolean targetIsLocal(Request processed) {
        URI next = processed.getHeader(RouteHeader.NAME) instanceof RouteHeader route
                ? route.getAddress().getURI() : processed.getRequestURI();
        if (!(next instanceof SipURI)) {
            return false;
        }
        try {
            return trust.domains().serves(SipUri.parse(next.toString()));
        } catch (IllegalArgumentException e) {
            return false;
        }
    }

    /** Whether a node of this cluster (its branch marker on a Via) forwarded the request before. */
    private static boolean passedThroughCluster(Request r) {
        for (Header h : HeaderLists.of(r, ViaHeader.NAME)) {
            String branch = ((ViaHeader) h).getBranch();
            if (branch != null && branch.startsWith(LoopDetection.MARKER)) {
                return true;
            }
        }
        return false;
    }

    /** Forwards an ACK that matched no server transaction: the ACK for a 2xx (§16.11 stateless). */
    public void forwardAck(Request ack) {
        if (!(ack.getRequestURI() instanceof SipURI)) {
            return;
        }
        MaxForwardsHeader mf = (MaxForwardsHeader) ack.getHeader(MaxForwardsHeader.NAME);
        if (mf != null && mf.getMaxForwards() <= 0) {
            return;
        }
        Request processed = (Request) ack.clone();
        Routing routing = processRoutes(processed);
        if (!routing.recorded() && !targetIsLocal(processed)) {
            // An ACK cannot be challenged; one that no dialog of ours explains goes nowhere foreign.
            LOG.debug("dropping ACK towards foreign {}", processed.getRequestURI());
            return;
        }
        resolve(processed, routing.routedHere(), toTag(ack) != null, passedThroughCluster(ack), false, groups -> {
            Target first = groups.get(0).get(0);
            try {
                forwarder.sendStatelessly(forwarder.statelessCopyFor(ack, processed, first));
            } catch (Exception e) {
                LOG.debug("could not forward ACK to {}: {}", first.uri(), e.toString());
            }
        }, (status, reason) -> LOG.debug("dropping ACK for {}: {}", ack.getRequestURI(), reason), Optional.empty());
    }

    /** Answers a CANCEL and cancels its INVITE's branches (§16.10). */
    public void cancel(ServerTransaction st, Request cancel) {
        ResponseContext context = invites.get(transactionKey(cancel));
        if (context == null) {
            sip.reply(st, cancel, Response.CALL_OR_TRANSACTION_DOES_NOT_EXIST, "Call/Transaction Does Not Exist");
            return;
        }
        sip.reply(st, cancel, Response.OK, null);
        context.cancel();
    }

    /** A response from downstream. */
    public void onResponse(ResponseEvent event) {
        Response response = event.getResponse();
        ClientTransaction ct = event.getClientTransaction();
        Object owner = ct == null ? null : ct.getApplicationData();
        if (owner instanceof ResponseContext context) {
            context.onResponse(ct, response);
        } else if (owner == null) {
            forwardStatelessly(response);
        }
    }

    /** A client transaction that got no final response in time counts as 408 (§16.7 item 2, §16.8). */
    public void onTimeout(TimeoutEvent event) {
        if (event.isServerTransaction()) {
            return;
        }
        ClientTransaction ct = event.getClientTransaction();
        if (ct != null && ct.getApplicationData() instanceof ResponseContext context) {
            context.onBranchFailure(ct, Response.REQUEST_TIMEOUT, "Request Timeout");
        }
    }

    /**
     * A response no client transaction here expects: a retransmitted 2xx
     * after the transaction ended, or a late one, is passed on by its Via.
     * One whose top Via is another node of this cluster went to the wrong
     * node (some UAs, SIPp's built-in UAS among them, answer every request
     * of a call to the address the INVITE came from, although RFC 3261
     * §18.2.2 says to answer by the Via); it is handed to that node as it is.
     */
    private void forwardStatelessly(Response response) {
        ViaHeader top = (ViaHeader) response.getHeader(ViaHeader.NAME);
        if (top == null || top.getBranch() == null || !top.getBranch().startsWith(LoopDetection.MAGIC)) {
            return;
        }
        if (!sip.self().isSentBy(top.getHost(), top.getPort())) {
            if (top.getBranch().startsWith(LoopDetection.MARKER) && trust.domains().isAlias(top.getHost(), top.getPort())) {
                sip.send(null, (Response) response.clone());
            }
            return;
        }
        Response copy = (Response) response.clone();
        copy.removeFirst(ViaHeader.NAME);
        if (copy.getHeader(ViaHeader.NAME) != null) {
            sip.send(null, copy);
        }
    }

    private interface Rejection {
        void reject(int status, String reason);
    }

    /**
     * How an out-of-dialog request is answered when the DHT admission
     * refuses its work: 503 with Retry-After. Empty for a request inside a
     * dialog, which finishes work already admitted and is never refused.
     */
    private Optional<Runnable> refusal(boolean inDialog, Request request, ResponseContext context) {
        if (inDialog) {
            return Optional.empty();
        }
        return Optional.of(() -> {
            try {
                context.respond(admission.refusal(sip, request));
            } catch (ParseException | InvalidArgumentException | RuntimeException e) {
                context.reject(Response.SERVICE_UNAVAILABLE, "Location service overloaded");
            }
        });
    }

    /**
     * {@code work} started with the proxy's timeout: through the DHT
     * admission when it may be refused (empty when it is), else at once.
     */
    private <T> Optional<CompletableFuture<T>> dhtWork(Supplier<CompletableFuture<T>> work, boolean refusable) {
        return refusable ? admission.start(work, timeout) : Optional.of(DhtAdmission.timed(work, timeout));
    }

    /**
     * Finds where {@code processed} goes (§16.5) and hands the target groups,
     * highest q first, to {@code onTargets}, or a status to {@code onReject};
     * runs {@code onRefused}, when given, instead of a lookup the DHT
     * admission refuses.
     *
     * @param authenticated the sender proved who it is (Proxy-Authorization), so it may learn whether a local
     *                      target without bindings exists ({@link #noTargets})
     */
    private void resolve(Request processed, boolean routedHere, boolean inDialog, boolean passedThroughCluster,
                         boolean authenticated, Consumer<List<List<Target>>> onTargets, Rejection onReject,
                         Optional<Runnable> onRefused) {
        URI uri = processed.getRequestURI();
        if (processed.getHeader(RouteHeader.NAME) != null || (routedHere && inDialog)) {
            onTargets.accept(List.of(List.of(Target.direct(uri))));
            return;
        }
        Optional<AddressOfRecord> local;
        try {
            local = trust.domains().canonical(SipUri.parse(uri.toString()).toAddressOfRecord());
        } catch (IllegalArgumentException e) {
            onReject.reject(Response.BAD_REQUEST, "Bad Request-URI: " + e.getMessage());
            return;
        }
        if (local.isEmpty()) {
            // Another domain: the relay decision already let it through.
            onTargets.accept(List.of(List.of(Target.direct(uri))));
            return;
        }
        AddressOfRecord aor = local.get();
        Optional<CompletableFuture<List<Binding>>> admitted = dhtWork(() -> locations.lookup(aor),
                onRefused.isPresent());
        if (admitted.isEmpty()) {
            onRefused.orElseThrow().run();
            return;
        }
        CompletableFuture<List<Binding>> done = admitted.get();
        Runnable next = () -> {
            try {
                List<Binding> bindings = BranchLimits.select(done.join(), trust.maxBranches(),
                        trust.maxBranchesPerHost(), passedThroughCluster);
                if (!bindings.isEmpty()) {
                    onTargets.accept(groups(bindings));
                } else if (routedHere && namesAnEndpoint(uri)) {
                    onTargets.accept(List.of(List.of(Target.direct(uri))));
                } else {
                    noTargets(aor, authenticated, onReject);
                }
            } catch (RuntimeException e) {
                LOG.warn("location lookup for {} failed: {}", aor, String.valueOf(e.getCause() != null ? e.getCause() : e));
                onReject.reject(Response.SERVER_INTERNAL_ERROR, "Location service failed");
            }
        };
        if (done.isDone()) {
            next.run();
        } else {
            done.whenCompleteAsync((b, e) -> next.run(), completions);
        }
    }

    /**
     * Whether a Request-URI in a served domain that has no bindings can
     * still be forwarded to as it is: it names a host and port (a phone's
     * contact, say, in a request routed here) that is not this cluster's own
     * alias. A bare domain or an alias would lead back here, or to a DNS
     * lookup of the served domain that fails.
     */
    private boolean namesAnEndpoint(URI uri) {
        if (!(uri instanceof SipURI s) || s.getPort() <= 0) {
            return false;
        }
        return !trust.domains().isAlias(s.getHost(), s.getPort());
    }

    /**
     * The answer for a local target with no bindings (RFC 3261 §16.5: an
     * empty target set, 480 Temporarily Unavailable): 404 when it is not a
     * provisioned user (§21.4.5), which only a sender that authenticated
     * learns, so that strangers cannot list the users by calling them. With
     * {@code --auth none} no user is provisioned and every such target is
     * unknown: 404.
     */
    private void noTargets(AddressOfRecord aor, boolean authenticated, Rejection onReject) {
        Optional<DigestAuthenticator> authenticator = trust.authenticator();
        if (authenticator.isEmpty()) {
            onReject.reject(Response.NOT_FOUND, "Not Found");
            return;
        }
        if (!authenticated) {
            onReject.reject(Response.TEMPORARILY_UNAVAILABLE, "Temporarily Unavailable");
            return;
        }
        DhtAdmission.timed(() -> authenticator.get().provisioned(aor), timeout).whenCompleteAsync((known, e) -> {
            if (e != null) {
                LOG.debug("could not tell whether {} is provisioned: {}", aor, e.toString());
            }
            if (e == null && !known) {
                onReject.reject(Response.NOT_FOUND, "Not Found");
            } else {
                onReject.reject(Response.TEMPORARILY_UNAVAILABLE, "Temporarily Unavailable");
            }
        }, completions);
    }

    /** Bindings (already highest q first) as {@link ForkPlan} groups them. */
    private List<List<Target>> groups(List<Binding> bindings) {
        return ForkPlan.groups(bindings, contact -> {
            try {
                return Optional.of(sip.addresses().createURI(contact));
            } catch (ParseException e) {
                LOG.debug("skipping unusable contact {}: {}", contact, e.getMessage());
                return Optional.empty();
            }
        });
    }

    /**
     * How a request reached this node.
     *
     * @param routedHere a Route (or strict-routed Request-URI) value named this node
     * @param recorded   one of those carried a valid Record-Route token for the request's Call-ID
     */
    private record Routing(boolean routedHere, boolean recorded) {
    }

    /** Route processing of §16.4 on {@code r}. */
    private Routing processRoutes(Request r) {
        boolean routedHere = false;
        boolean recorded = false;
        String callId = r.getHeader(CallIdHeader.NAME) instanceof CallIdHeader c ? c.getCallId() : null;
        if (isOurs(r.getRequestURI()) && r.getRequestURI() instanceof SipURI s && s.hasLrParam()) {
            // The previous hop is a strict router: the real Request-URI is the last Route value.
            RouteHeader last = lastRoute(r);
            if (last != null) {
                recorded = trust.dialogTokens().valid(callId, s.getParameter(Forwarder.TOKEN_PARAM));
                r.setRequestURI(last.getAddress().getURI());
                removeLastRoute(r);
                routedHere = true;
            }
        }
        while (r.getHeader(RouteHeader.NAME) instanceof RouteHeader top && isOurs(top.getAddress().getURI())) {
            if (top.getAddress().getURI() instanceof SipURI ours
                    && trust.dialogTokens().valid(callId, ours.getParameter(Forwarder.TOKEN_PARAM))) {
                recorded = true;
            }
            r.removeFirst(RouteHeader.NAME);
            routedHere = true;
        }
        return new Routing(routedHere, recorded);
    }

    /** This node's address, or the front's it record-routes with (§16.4: "indicates this proxy"). */
    private boolean isOurs(javax.sip.address.URI uri) {
        return sip.self().isSelf(uri) || recordRoutes.names(uri);
    }

    private static RouteHeader lastRoute(Request r) {
        List<Header> routes = HeaderLists.of(r, RouteHeader.NAME);
        return routes.isEmpty() ? null : (RouteHeader) routes.get(routes.size() - 1);
    }

    private static void removeLastRoute(Request r) {
        List<Header> routes = HeaderLists.of(r, RouteHeader.NAME);
        r.removeHeader(RouteHeader.NAME);
        for (int i = 0; i < routes.size() - 1; i++) {
            r.addHeader(routes.get(i));
        }
    }

    private static List<String> proxyRequire(Request r) {
        List<String> options = new ArrayList<>();
        for (Header h : HeaderLists.of(r, ProxyRequireHeader.NAME)) {
            options.add(((ProxyRequireHeader) h).getOptionTag());
        }
        return options;
    }

    private void rejectExtensions(ServerTransaction st, Request request, List<String> unsupported) {
        try {
            Response r = sip.response(Response.BAD_EXTENSION, request, "Bad Extension");
            for (String option : unsupported) {
                r.addHeader(sip.headers().createUnsupportedHeader(option));
            }
            sip.send(st, r);
        } catch (ParseException e) {
            sip.reply(st, request, Response.BAD_EXTENSION, "Bad Extension");
        }
    }

    private static String toTag(Request r) {
        ToHeader to = (ToHeader) r.getHeader(ToHeader.NAME);
        return to == null ? null : to.getTag();
    }

    /**
     * The transport the request's sender used to reach the cluster: the top
     * Via's, or, when the top Via is the front's (the balancer relays to
     * nodes over UDP whatever the client used), the Via below it.
     */
    private String inboundTransport(Request r) {
        List<Header> vias = HeaderLists.of(r, ViaHeader.NAME);
        if (vias.isEmpty()) {
            return "UDP";
        }
        ViaHeader top = (ViaHeader) vias.get(0);
        if (vias.size() > 1 && !sip.self().isSentBy(top.getHost(), top.getPort())
                && recordRoutes.isSentBy(top.getHost(), top.getPort())) {
            return ((ViaHeader) vias.get(1)).getTransport();
        }
        return top.getTransport();
    }

    /** INVITE and its CANCEL share the top Via's branch and sent-by (RFC 3261 §9.2). */
    private static String transactionKey(Request r) {
        ViaHeader via = (ViaHeader) r.getHeader(ViaHeader.NAME);
        if (via == null) {
            return "";
        }
        return via.getBranch() + "|" + via.getHost() + ":" + via.getPort();
    }
}
