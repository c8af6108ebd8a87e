package org.p2psip.servlet.node;

import java.text.ParseException;

import javax.sip.DialogTerminatedEvent;
import javax.sip.IOExceptionEvent;
import javax.sip.RequestEvent;
import javax.sip.ResponseEvent;
import javax.sip.ServerTransaction;
import javax.sip.SipListener;
import javax.sip.TimeoutEvent;
import javax.sip.TransactionTerminatedEvent;
import javax.sip.message.Request;
import javax.sip.message.Response;

import org.p2psip.servlet.proxy.Proxy;
import org.p2psip.servlet.registrar.Registrar;
import org.p2psip.servlet.sip.BadRequestException;
import org.p2psip.servlet.sip.HeaderScreen;
import org.p2psip.servlet.sip.SipEndpoint;
import org.p2psip.servlet.stack.RequestDefect;
import org.p2psip.servlet.stack.InputCounters;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Sends each JAIN-SIP event to the part of the node that handles it:
 * REGISTER to the registrar, OPTIONS for the node to the node, everything
 * else to the proxy. Every method returns quickly and lets nothing escape,
 * so no JAIN-SIP thread dies on bad input.
 */
final class NodeListener implements SipListener {

    private static final Logger LOG = LoggerFactory.getLogger(NodeListener.class);

    private final SipEndpoint sip;
    private final Registrar registrar;
    private final Proxy proxy;
    private final OptionsResponder options;
    private final InputCounters counters;

    NodeListener(SipEndpoint sip, Registrar registrar, Proxy proxy, OptionsResponder options,
                 InputCounters counters) {
        this.sip = sip;
        this.registrar = registrar;
        this.proxy = proxy;
        this.options = options;
        this.counters = counters;
    }

    @Override
    public void processRequest(RequestEvent event) {
        try {
            dispatch(event);
        } catch (RuntimeException | StackOverflowError e) {
            LOG.warn("request {} failed: {}", event.getRequest().getMethod(), e.toString(), e);
        }
    }

    private void dispatch(RequestEvent event) {
        Request request = event.getRequest();
        String method = request.getMethod();
        boolean ack = Request.ACK.equals(method);
        if (request instanceof gov.nist.javax.sip.message.MessageExt m
                && m.getApplicationData() instanceof RequestDefect defect) {
            sip.traffic().received(method);
            if (ack) {
                counters.countDropped();
            } else {
                refuse(request, defect);
            }
            return;
        }
        if (ack) {
            sip.traffic().received(method);
            // An ACK inside a server transaction acknowledges a non-2xx this
            // node sent; it ends there (RFC 3261 §17.2.1).
            if (event.getServerTransaction() == null) {
                try {
                    HeaderScreen.check(request);
                    proxy.forwardAck(request);
                } catch (BadRequestException e) {
                    counters.countDropped();
                }
            }
            return;
        }
        SipEndpoint.Inbound inbound = registrar.answersStatelessly(request) && event.getServerTransaction() == null
                ? SipEndpoint.Inbound.STATELESS : sip.serverTransaction(event);
        if (inbound.ignore()) {
            return;
        }
        // Counted once its transaction is known: a retransmission the stack absorbs is not a request of its own.
        sip.traffic().received(method);
        ServerTransaction st = inbound.transaction();
        try {
            HeaderScreen.check(request);
        } catch (BadRequestException e) {
            sip.reply(st, request, e.status(), e.getMessage());
            return;
        }
        switch (method) {
            case Request.REGISTER -> registrar.handle(st, request);
            case Request.CANCEL -> proxy.cancel(st, request);
            case Request.OPTIONS -> {
                if (options.isForNode(request)) {
                    options.answer(st, request);
                } else {
                    proxy.forward(st, request);
                }
            }
            default -> proxy.forward(st, request);
        }
    }

    /** Answers a defective request statelessly, without the parser's placeholder headers. */
    private void refuse(Request request, RequestDefect defect) {
        try {
            Response response = sip.response(defect.status(), request, defect.reason());
            for (String name : defect.placeholders()) {
                response.removeHeader(name);
            }
            sip.send(null, response);
        } catch (ParseException e) {
            sip.reply(null, request, defect.status(), defect.reason());
        }
    }

    @Override
    public void processResponse(ResponseEvent event) {
        try {
            proxy.onResponse(event);
        } catch (RuntimeException e) {
            LOG.warn("response {} failed: {}", event.getResponse().getStatusCode(), e.toString(), e);
        }
    }

    @Override
    public void processTimeout(TimeoutEvent event) {
        try {
            proxy.onTimeout(event);
        } catch (RuntimeException e) {
            LOG.warn("timeout handling failed: {}", e.toString(), e);
        }
    }

    @Override
    public void processIOException(IOExceptionEvent event) {
        LOG.debug("I/O error towards {}:{}/{}", event.getHost(), event.getPort(), event.getTransport());
    }

    @Override
    public void processTransactionTerminated(TransactionTerminatedEvent event) {
        // Nothing to release: response contexts end with their final response.
    }

    @Override
    public void processDialogTerminated(DialogTerminatedEvent event) {
        // The node keeps no dialogs.
    }
}
