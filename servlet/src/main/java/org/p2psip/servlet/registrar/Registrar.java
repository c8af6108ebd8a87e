package org.p2psip.servlet.registrar;

import java.text.ParseException;
import java.time.Clock;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeoutException;

import javax.sip.InvalidArgumentException;
import javax.sip.ServerTransaction;
import javax.sip.header.AuthorizationHeader;
import javax.sip.header.ViaHeader;
import javax.sip.message.Request;
import javax.sip.message.Response;

import org.p2psip.core.location.LocationService;
import org.p2psip.core.location.RegisterOutcome;
import org.p2psip.core.location.RegisterRequest;
import org.p2psip.core.location.ServedDomains;
import org.p2psip.servlet.accounting.AccountingRecorder;
import org.p2psip.servlet.auth.AuthOutcome;
import org.p2psip.servlet.auth.DigestAuthenticator;
import org.p2psip.servlet.sip.BadRequestException;
import org.p2psip.servlet.sip.DhtAdmission;
import org.p2psip.servlet.sip.SipEndpoint;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The registrar of RFC 3261 §10.3 on the location service, for the
 * domains this cluster serves. A REGISTER is checked (step 1 and 5: 403
 * for a domain not served), then authenticated when a
 * {@link DigestAuthenticator} is given (step 3: 401 with a challenge until
 * it carries valid credentials of the AOR's own user, 403 for another
 * user's), then applied.
 *
 * <p>The REGISTER's server transaction absorbs UDP retransmissions while
 * the DHT works; the answer is sent from the future's completion, never by
 * blocking the JAIN-SIP thread that delivered the request. A DHT that
 * fails or does not answer in time gets the client a 500, so no
 * transaction is left open. A REGISTER beyond what the DHT can serve
 * within the latency {@link DhtAdmission} aims for is refused at once with
 * 503 and a Retry-After (RFC 3261 §21.5.4) instead of waiting its turn
 * into a timeout.
 *
 * <p>A REGISTER without credentials, where the node authenticates, is
 * answered without a server transaction ({@link #answersStatelessly}).
 *
 * <p>Once the answer to an applied REGISTER is sent, the bindings it
 * changed are accounted ({@link AccountingRecorder}, when the node records
 * registrations).
 */
public final class Registrar {

    private static final Logger LOG = LoggerFactory.getLogger(Registrar.class);

    /** What the registrar answers, before it becomes a SIP response. */
    private sealed interface Answer {
        record Applied(RegisterRequest register, RegisterOutcome outcome, boolean authenticated) implements Answer {
        }

        record Challenge(String realm, boolean stale) implements Answer {
        }

        record Forbidden(String reason) implements Answer {
        }
    }

    private final SipEndpoint sip;
    private final LocationService locations;
    private final ServedDomains domains;
    private final Optional<DigestAuthenticator> authenticator;
    private final RegisterResponses responses;
    private final Duration timeout;
    private final Clock clock;
    private final Executor completions;
    private final RegistrationCap cap;
    private final DhtAdmission admission;
    private final AccountingRecorder accounting;

    /**
     * A registrar with a DHT admission of its own, standard limits and the
     * cap's Retry-After; a node shares one with its proxy through the other
     * constructor.
     */
    public Registrar(SipEndpoint sip, LocationService locations, ServedDomains domains,
                     Optional<DigestAuthenticator> authenticator, Duration timeout, Clock clock, Executor completions,
                     RegistrationCap cap, AccountingRecorder accounting) {
        this(sip, locations, domains, authenticator, timeout, clock, completions, cap,
                DhtAdmission.standard(cap.retryAfter()), accounting);
    }

    /**
     * @param authenticator checks credentials; empty when the node runs with {@code --auth none}
     * @param completions   where answers are sent from when the DHT completes
     *                      on one of its own (possibly I/O) threads
     * @param cap           how many values the node may hold before it refuses new bindings
     * @param admission     how many REGISTERs may wait on the DHT before new ones are refused
     * @param accounting    where the binding changes go
     */
    public Registrar(SipEndpoint sip, LocationService locations, ServedDomains domains,
                     Optional<DigestAuthenticator> authenticator, Duration timeout, Clock clock, Executor completions,
                     RegistrationCap cap, DhtAdmission admission, AccountingRecorder accounting) {
        this.sip = sip;
        this.locations = locations;
        this.domains = domains;
        this.authenticator = authenticator;
        this.responses = new RegisterResponses(sip);
        this.timeout = timeout;
        this.clock = clock;
        this.completions = completions;
        this.cap = cap;
        this.admission = admission;
        this.accounting = accounting;
    }

    /**
     * Whether {@code request} is to be answered without a server
     * transaction: a REGISTER over UDP without an Authorization header
     * where the node authenticates. Its answer is a 401 (or a refusal: 400,
     * 403, 503) decided at once, with no DHT read, and RFC 3261 §8.2.7 lets
     * a stateless UAS send exactly that challenge; a retransmission is
     * answered afresh the same way. A transaction would keep the request
     * and its 401 for Timer J's 32 s (§17.2.2): at 10,000 such REGISTERs a
     * second from a hundred sources, a node's heap grew by 400 MB. Over TCP
     * and TLS Timer J is zero, and the transaction stays.
     */
    public boolean answersStatelessly(Request request) {
        if (authenticator.isEmpty() || !Request.REGISTER.equals(request.getMethod())
                || request.getHeader(AuthorizationHeader.NAME) != null) {
            return false;
        }
        ViaHeader via = (ViaHeader) request.getHeader(ViaHeader.NAME);
        return via != null && "UDP".equalsIgnoreCase(via.getTransport());
    }

    /** Handles one REGISTER; returns at once. {@code st} is null when it is answered statelessly. */
    public void handle(ServerTransaction st, Request request) {
        RegisterRequest register;
        try {
            register = RegisterTranslation.translate(request, RegisterTranslation.source(request), domains);
        } catch (BadRequestException e) {
            sip.reply(st, request, e.status(), e.getMessage());
            return;
        }
        if (register.mayAddBindings() && cap.reached()) {
            refuseForCapacity(st, request);
            return;
        }
        Optional<CompletableFuture<Answer>> admitted = admission.start(() -> decide(request, register), timeout);
        if (admitted.isEmpty()) {
            refuseForDhtLoad(st, request);
            return;
        }
        CompletableFuture<Answer> answer = admitted.get();
        if (answer.isDone()) {
            answer(st, request, answer);
        } else {
            CompletableFuture<Answer> pending = answer;
            pending.whenCompleteAsync((o, e) -> answer(st, request, pending), completions);
        }
    }

    private void refuseForCapacity(ServerTransaction st, Request request) {
        try {
            Response r = sip.response(Response.SERVICE_UNAVAILABLE, request, "Registration capacity reached");
            r.setHeader(sip.headers().createRetryAfterHeader((int) Math.max(1, cap.retryAfter().toSeconds())));
            sip.send(st, r);
        } catch (ParseException | InvalidArgumentException | RuntimeException e) {
            sip.reply(st, request, Response.SERVICE_UNAVAILABLE, "Registration capacity reached");
        }
    }

    /** A REGISTER the DHT could not serve in time is refused before it waits, so it is answered within T1. */
    private void refuseForDhtLoad(ServerTransaction st, Request request) {
        try {
            sip.send(st, admission.refusal(sip, request));
        } catch (ParseException | InvalidArgumentException | RuntimeException e) {
            sip.reply(st, request, Response.SERVICE_UNAVAILABLE, "Location service overloaded");
        }
    }

    private CompletableFuture<Answer> decide(Request request, RegisterRequest register) {
        if (authenticator.isEmpty()) {
            return locations.register(register).thenApply(o -> new Answer.Applied(register, o, false));
        }
        String realm = register.aor().host();
        return authenticator.get().authenticate(request, false, realm).thenCompose(outcome -> {
            if (outcome instanceof AuthOutcome.Challenge c) {
                return CompletableFuture.completedFuture(new Answer.Challenge(realm, c.stale()));
            }
            if (outcome instanceof AuthOutcome.Refused r) {
                return CompletableFuture.completedFuture(new Answer.Forbidden(r.reason()));
            }
            AuthOutcome.Authenticated who = (AuthOutcome.Authenticated) outcome;
            if (!who.user().owns(register.aor())) {
                return CompletableFuture.completedFuture(
                        new Answer.Forbidden("Forbidden: credentials are not for this address-of-record"));
            }
            return locations.register(register).thenApply(o -> new Answer.Applied(register, o, true));
        });
    }

    private void answer(ServerTransaction st, Request request, CompletableFuture<Answer> done) {
        try {
            Answer answer = done.getNow(null);
            if (answer instanceof Answer.Applied applied) {
                sip.send(st, responses.toResponse(request, applied.outcome(), clock.instant(), !applied.authenticated()));
                if (applied.outcome() instanceof RegisterOutcome.Accepted accepted) {
                    accounting.bindingsChanged(applied.register(), accepted.changes());
                }
            } else if (answer instanceof Answer.Challenge c) {
                Response r = sip.response(Response.UNAUTHORIZED, request, null);
                authenticator.orElseThrow().challenge(request, r, sip.headers(), c.realm(), c.stale());
                sip.send(st, r);
            } else if (answer instanceof Answer.Forbidden f) {
                sip.reply(st, request, Response.FORBIDDEN, f.reason());
            }
        } catch (CompletionException e) {
            failed(st, request, e.getCause());
        } catch (Exception e) {
            failed(st, request, e);
        }
    }

    private void failed(ServerTransaction st, Request request, Throwable cause) {
        if (cause instanceof TimeoutException) {
            LOG.warn("location service did not answer a REGISTER within {} ms", timeout.toMillis());
            sip.reply(st, request, Response.SERVER_INTERNAL_ERROR, "Location service timed out");
        } else {
            LOG.warn("REGISTER failed: {}", String.valueOf(cause));
            sip.reply(st, request, Response.SERVER_INTERNAL_ERROR, "Location service failed");
        }
    }
}
