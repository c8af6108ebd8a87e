package org.p2psip.servlet.sip;

import java.text.ParseException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.Optional;
import java.util.function.Predicate;
import java.util.concurrent.ThreadLocalRandom;

import javax.sip.ServerTransaction;
import javax.sip.SipException;
import javax.sip.SipProvider;
import javax.sip.TransactionAlreadyExistsException;
import javax.sip.TransactionUnavailableException;
import javax.sip.address.AddressFactory;
import javax.sip.header.CSeqHeader;
import javax.sip.header.CallIdHeader;
import javax.sip.header.HeaderFactory;
import javax.sip.header.ToHeader;
import javax.sip.message.MessageFactory;
import javax.sip.message.Request;
import javax.sip.message.Response;

import org.p2psip.core.metrics.SipTraffic;
import org.p2psip.servlet.logging.AccessLog;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import gov.nist.javax.sip.message.SIPRequest;
import gov.nist.javax.sip.stack.SIPTransaction;
import gov.nist.javax.sip.stack.SIPTransactionStack;

/**
 * The node's handle on its JAIN-SIP provider and factories, and the one
 * place responses leave from. Sending never throws: a response that cannot
 * be sent is logged, because the peer is gone or the transaction is over
 * and nothing better can be done.
 *
 * @param provider   the provider both listening points (UDP, TCP) belong to
 * @param messages   JAIN-SIP's message factory
 * @param headers    JAIN-SIP's header factory
 * @param addresses  JAIN-SIP's address factory
 * @param self       this node's address
 * @param traffic    where each response sent is counted, and the final ones timed
 * @param access     where each final response is logged, if anywhere
 * @param trusted    the hops the access log looks through for the client's address ({@link ClientSource})
 */
public record SipEndpoint(SipProvider provider, MessageFactory messages, HeaderFactory headers,
                          AddressFactory addresses, SelfAddress self, SipTraffic traffic, Optional<AccessLog> access,
                          Predicate<InetAddress> trusted) {

    /** An endpoint that trusts no hop: the access log names the packet's source. */
    public SipEndpoint(SipProvider provider, MessageFactory messages, HeaderFactory headers, AddressFactory addresses,
                       SelfAddress self, SipTraffic traffic, Optional<AccessLog> access) {
        this(provider, messages, headers, addresses, self, traffic, access, a -> false);
    }

    /** When a SIP thread took a request up, kept on its server transaction until the final response. */
    private record Arrival(long nanos) {
    }

    private static final Logger LOG = LoggerFactory.getLogger(SipEndpoint.class);

    /**
     * The server transaction of a request, created if the stack has none
     * yet. Empty when the request is a retransmission the stack already
     * absorbs (or an ACK); a {@link Inbound#stateless} result when the stack
     * cannot give it a transaction of its own, which is the case for a
     * different request that reuses another one's branch: JAIN-SIP keys
     * server transactions by branch alone, while RFC 3261 §17.2.3 also
     * compares sent-by and method. Such requests are answered statelessly.
     */
    public Inbound serverTransaction(javax.sip.RequestEvent event) {
        ServerTransaction st = event.getServerTransaction();
        if (st != null) {
            if (st.getApplicationData() == null) {
                st.setApplicationData(new Arrival(System.nanoTime()));
            }
            return new Inbound(st, false);
        }
        Request request = event.getRequest();
        if (Request.ACK.equals(request.getMethod())) {
            return Inbound.IGNORE;
        }
        try {
            ServerTransaction created = provider.getNewServerTransaction(request);
            created.setApplicationData(new Arrival(System.nanoTime()));
            return new Inbound(created, false);
        } catch (TransactionAlreadyExistsException e) {
            return isRetransmission(request) ? Inbound.IGNORE : Inbound.STATELESS;
        } catch (TransactionUnavailableException e) {
            LOG.debug("no server transaction for {}: {}", request.getMethod(), e.getMessage());
            return Inbound.STATELESS;
        }
    }

    /** Whether the transaction the stack holds for {@code request}'s branch was made for this very request. */
    private boolean isRetransmission(Request request) {
        if (!(provider.getSipStack() instanceof SIPTransactionStack stack) || !(request instanceof SIPRequest r)) {
            return true;
        }
        SIPTransaction existing = stack.findTransaction(r, true);
        if (existing == null || existing.getRequest() == null) {
            return true;
        }
        SIPRequest first = (SIPRequest) existing.getRequest();
        return first.getMethod().equals(r.getMethod())
                && first.getCSeq().getSeqNumber() == r.getCSeq().getSeqNumber()
                && first.getCallId().getCallId().equals(r.getCallId().getCallId())
                && java.util.Objects.equals(first.getFromTag(), r.getFromTag());
    }

    /**
     * How to answer a request.
     *
     * @param transaction  the server transaction, or null to answer statelessly
     * @param ignore       true when the request needs no handling at all
     */
    public record Inbound(ServerTransaction transaction, boolean ignore) {
        static final Inbound IGNORE = new Inbound(null, true);
        /** A request answered without a server transaction. */
        public static final Inbound STATELESS = new Inbound(null, false);
    }

    /** Builds a response; a reason phrase replaces the standard one when given. */
    public Response response(int status, Request request, String reason) throws ParseException {
        Response r = messages.createResponse(status, request);
        if (reason != null && !reason.isEmpty()) {
            r.setReasonPhrase(reason);
        }
        if (status > 100) {
            ToHeader to = (ToHeader) r.getHeader(ToHeader.NAME);
            if (to != null && to.getTag() == null) {
                to.setTag(newTag());
            }
        }
        return r;
    }

    /**
     * Sends {@code response} through {@code st}, or statelessly when there is
     * no transaction (the stack then routes it by its Via, RFC 3261 §18.2.2).
     * It is counted, and its access-log line written, just before it goes:
     * once it has gone, the client may send its next request, whose line
     * must not come first.
     */
    public void send(ServerTransaction st, Response response) {
        try {
            count(st, response);
            if (st != null) {
                st.sendResponse(response);
            } else {
                provider.sendResponse(response);
            }
        } catch (SipException | RuntimeException | javax.sip.InvalidArgumentException e) {
            LOG.debug("could not send {} {}: {}", response.getStatusCode(), response.getReasonPhrase(), e.toString());
        }
    }

    /** Counts a response sent; the first final one through a transaction is timed from the request's arrival. */
    private void count(ServerTransaction st, Response response) {
        CSeqHeader cseq = (CSeqHeader) response.getHeader(CSeqHeader.NAME);
        String method = cseq == null ? null : cseq.getMethod();
        int status = response.getStatusCode();
        long nanos = -1;
        if (status >= 200 && st != null && st.getApplicationData() instanceof Arrival arrival) {
            st.setApplicationData(null);
            nanos = System.nanoTime() - arrival.nanos();
            traffic.answeredFinal(method, status, nanos);
        } else {
            traffic.answered(method, status);
        }
        if (status >= 200 && access.isPresent()) {
            ToHeader to = (ToHeader) response.getHeader(ToHeader.NAME);
            CallIdHeader callId = (CallIdHeader) response.getHeader(CallIdHeader.NAME);
            InetSocketAddress source = ClientSource.of(st != null && st.getRequest() != null ? st.getRequest()
                    : response, trusted);
            access.get().record(ClientSource.text(source), method == null ? "-" : method,
                    to == null ? "-" : to.getAddress().getURI().toString(), status, nanos,
                    callId == null ? "-" : callId.getCallId());
        }
    }

    /** Answers {@code request} with {@code status} and {@code reason}, catching everything. */
    public void reply(ServerTransaction st, Request request, int status, String reason) {
        try {
            send(st, response(status, request, reason));
        } catch (ParseException | RuntimeException e) {
            LOG.debug("could not build {} for {}: {}", status, request.getMethod(), e.toString());
        }
    }

    /** A fresh To/From tag. */
    public static String newTag() {
        return Long.toHexString(ThreadLocalRandom.current().nextLong() & Long.MAX_VALUE);
    }
}
