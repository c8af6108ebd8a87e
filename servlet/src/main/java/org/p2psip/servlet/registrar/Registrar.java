package org.p2psip.servlet.registrar;

import java.time.Clock;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import javax.sip.ServerTransaction;
import javax.sip.message.Request;
import javax.sip.message.Response;

import org.p2psip.core.location.LocationService;
import org.p2psip.core.location.RegisterOutcome;
import org.p2psip.core.location.RegisterRequest;
import org.p2psip.servlet.sip.BadRequestException;
import org.p2psip.servlet.sip.SipEndpoint;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The registrar of RFC 3261 §10.3 on the location service. The REGISTER's
 * server transaction absorbs UDP retransmissions while the DHT works; the
 * answer is sent from the future's completion, never by blocking the
 * JAIN-SIP thread that delivered the request. A DHT that fails or does not
 * answer in time gets the client a 500, so no transaction is left open.
 */
public final class Registrar {

    private static final Logger LOG = LoggerFactory.getLogger(Registrar.class);

    private final SipEndpoint sip;
    private final LocationService locations;
    private final RegisterResponses responses;
    private final Duration timeout;
    private final Clock clock;
    private final Executor completions;

    /**
     * @param completions where answers are sent from when the DHT completes
     *                    on one of its own (possibly I/O) threads
     */
    public Registrar(SipEndpoint sip, LocationService locations, Duration timeout, Clock clock, Executor completions) {
        this.sip = sip;
        this.locations = locations;
        this.responses = new RegisterResponses(sip);
        this.timeout = timeout;
        this.clock = clock;
        this.completions = completions;
    }

    /** Handles one REGISTER; returns at once. */
    public void handle(ServerTransaction st, Request request) {
        RegisterRequest register;
        try {
            register = RegisterTranslation.translate(request, RegisterTranslation.source(request));
        } catch (BadRequestException e) {
            sip.reply(st, request, e.status(), e.getMessage());
            return;
        }
        CompletableFuture<RegisterOutcome> outcome;
        try {
            outcome = locations.register(register).orTimeout(timeout.toMillis(), TimeUnit.MILLISECONDS);
        } catch (RuntimeException e) {
            outcome = CompletableFuture.failedFuture(e);
        }
        if (outcome.isDone()) {
            answer(st, request, outcome);
        } else {
            CompletableFuture<RegisterOutcome> pending = outcome;
            pending.whenCompleteAsync((o, e) -> answer(st, request, pending), completions);
        }
    }

    private void answer(ServerTransaction st, Request request, CompletableFuture<RegisterOutcome> done) {
        try {
            RegisterOutcome outcome = done.getNow(null);
            Response response = responses.toResponse(request, outcome, clock.instant());
            sip.send(st, response);
        } catch (java.util.concurrent.CompletionException e) {
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
