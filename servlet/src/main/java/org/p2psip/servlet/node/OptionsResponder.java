package org.p2psip.servlet.node;

import java.text.ParseException;
import java.util.ArrayList;
import java.util.List;

import javax.sip.ServerTransaction;
import javax.sip.address.SipURI;
import javax.sip.header.Header;
import javax.sip.header.RequireHeader;
import javax.sip.message.Request;
import javax.sip.message.Response;

import org.p2psip.servlet.sip.HeaderLists;
import org.p2psip.servlet.sip.SipEndpoint;

/**
 * Answers OPTIONS sent to the node itself (RFC 3261 §11.2): 200 with
 * Allow, Accept and Supported, or 420 when the request requires an
 * extension this node lacks (§8.2.2.3).
 */
final class OptionsResponder {

    static final String ALLOW = "INVITE, ACK, CANCEL, BYE, OPTIONS, REGISTER";
    /** RFC 3327 Path and, behind an edge proxy that keeps the flows, RFC 5626 outbound. */
    static final List<String> SUPPORTED = List.of("path", "outbound");

    private final SipEndpoint sip;

    OptionsResponder(SipEndpoint sip) {
        this.sip = sip;
    }

    /** Whether an OPTIONS to {@code request}'s Request-URI is for this node rather than a user. */
    boolean isForNode(Request request) {
        if (!(request.getRequestURI() instanceof SipURI uri)) {
            return false;
        }
        return uri.getUser() == null || uri.getUser().isEmpty() || sip.self().isSelf(uri);
    }

    void answer(ServerTransaction st, Request request) {
        try {
            List<String> required = new ArrayList<>();
            for (Header h : HeaderLists.of(request, RequireHeader.NAME)) {
                String tag = ((RequireHeader) h).getOptionTag();
                if (SUPPORTED.stream().noneMatch(tag::equalsIgnoreCase)) {
                    required.add(tag);
                }
            }
            if (!required.isEmpty()) {
                Response r = sip.response(Response.BAD_EXTENSION, request, "Bad Extension");
                for (String tag : required) {
                    r.addHeader(sip.headers().createUnsupportedHeader(tag));
                }
                sip.send(st, r);
                return;
            }
            Response ok = sip.response(Response.OK, request, null);
            ok.setHeader(sip.headers().createAllowHeader(ALLOW));
            ok.setHeader(sip.headers().createAcceptHeader("application", "sdp"));
            for (String tag : SUPPORTED) {
                ok.addHeader(sip.headers().createSupportedHeader(tag));
            }
            sip.send(st, ok);
        } catch (ParseException e) {
            sip.reply(st, request, Response.SERVER_INTERNAL_ERROR, null);
        }
    }
}
