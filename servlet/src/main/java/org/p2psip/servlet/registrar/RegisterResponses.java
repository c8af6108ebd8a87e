package org.p2psip.servlet.registrar;

import java.text.ParseException;
import java.time.Instant;
import java.util.Calendar;
import java.util.GregorianCalendar;
import java.util.List;
import java.util.Map;
import java.util.TimeZone;

import javax.sip.InvalidArgumentException;
import javax.sip.address.Address;
import javax.sip.header.ContactHeader;
import javax.sip.header.Header;
import javax.sip.header.SupportedHeader;
import javax.sip.header.ViaHeader;
import javax.sip.message.Request;
import javax.sip.message.Response;

import org.p2psip.core.location.Binding;
import org.p2psip.core.location.BindingSet;
import org.p2psip.core.location.RegisterOutcome;
import org.p2psip.core.location.RegisterOutcome.Accepted;
import org.p2psip.core.location.RegisterOutcome.Rejected;
import org.p2psip.servlet.sip.HeaderLists;
import org.p2psip.servlet.sip.SipEndpoint;

import gov.nist.javax.sip.header.ParametersHeader;
import gov.nist.javax.sip.message.SIPMessage;

/**
 * Builds the registrar's answer to a REGISTER from the location service's
 * outcome (RFC 3261 §10.3 step 8): 200 listing every current binding with
 * its remaining {@code expires} (and {@code q} when set) plus a Date
 * header; 423 with Min-Expires; other rejections with their reason phrase.
 *
 * <p>An answer to a request nobody authenticated that arrived over UDP is
 * kept within {@link #AMPLIFICATION_BOUND} times the request's size: a
 * REGISTER with a spoofed source address must not turn a small datagram
 * into a large one at someone else's host. Contacts that do not fit are
 * left out and a Warning says so.
 */
public final class RegisterResponses {

    /** The RFC 5626 option tag. */
    static final String OUTBOUND = "outbound";

    private final SipEndpoint sip;

    public RegisterResponses(SipEndpoint sip) {
        this.sip = sip;
    }

    /** How many times a request's size an unauthenticated UDP answer may reach. */
    static final int AMPLIFICATION_BOUND = 3;

    /**
     * @param unauthenticated whether nobody proved who sent the request (authentication is off)
     */
    public Response toResponse(Request request, RegisterOutcome outcome, Instant now, boolean unauthenticated)
            throws ParseException, InvalidArgumentException {
        if (outcome instanceof Accepted accepted) {
            Response ok = ok(request, accepted.bindings(), now);
            if (unauthenticated && accepted.bindings().size() > 1 && !overReliableTransport(request)) {
                bound(request, ok);
            }
            return ok;
        }
        return rejection(request, (Rejected) outcome);
    }

    private void bound(Request request, Response ok) throws ParseException, InvalidArgumentException {
        int requestSize = request instanceof SIPMessage m && m.getSize() > 0 ? m.getSize() : request.toString().length();
        int limit = AMPLIFICATION_BOUND * requestSize;
        if (ok.toString().length() <= limit) {
            return;
        }
        List<Header> contacts = HeaderLists.of(ok, ContactHeader.NAME);
        ok.removeHeader(ContactHeader.NAME);
        ok.addHeader(sip.headers().createWarningHeader("p2psip", 399, "Contact list truncated"));
        for (Header c : contacts) {
            ok.addHeader(c);
            if (ok.toString().length() > limit) {
                ok.removeLast(ContactHeader.NAME);
                break;
            }
        }
    }

    private static boolean overReliableTransport(Request request) {
        ViaHeader via = (ViaHeader) request.getHeader(ViaHeader.NAME);
        return via != null && !"UDP".equalsIgnoreCase(via.getTransport());
    }

    Response ok(Request request, BindingSet bindings, Instant now) throws ParseException, InvalidArgumentException {
        Response r = sip.response(Response.OK, request, null);
        for (Binding b : bindings.targetsAt(now)) {
            r.addHeader(contact(b, now));
        }
        // RFC 3327 §5.3: the registrar echoes the Path it stored.
        for (Header path : HeaderLists.of(request, "Path")) {
            r.addHeader((Header) path.clone());
        }
        if (usesOutbound(request)) {
            r.addHeader(sip.headers().createRequireHeader(OUTBOUND));
        }
        Calendar date = new GregorianCalendar(TimeZone.getTimeZone("GMT"));
        date.setTimeInMillis(now.toEpochMilli());
        r.setHeader(sip.headers().createDateHeader(date));
        return r;
    }

    /**
     * RFC 5626 §6: the registration is an outbound one, and the 200 says so
     * with {@code Require: outbound}, when the UA supports outbound, a
     * Contact carries {@code reg-id}, and the edge proxy that wrote the
     * first Path keeps the flow ({@code ob}). A registrar with no Path in
     * front of it would be the edge proxy itself, and a node keeps no
     * client connections, so then it does not.
     */
    static boolean usesOutbound(Request request) {
        boolean supported = false;
        for (Header h : HeaderLists.of(request, SupportedHeader.NAME)) {
            supported |= h instanceof SupportedHeader tag && OUTBOUND.equalsIgnoreCase(tag.getOptionTag());
        }
        if (!supported) {
            return false;
        }
        boolean regId = false;
        for (Header h : HeaderLists.of(request, ContactHeader.NAME)) {
            regId |= ((ContactHeader) h).getParameter("reg-id") != null;
        }
        List<String> path = RegisterTranslation.path(request);
        return regId && !path.isEmpty() && firstUriHasOb(path.get(0));
    }

    /** Whether the URI of a Path value ({@code <uri;params>...}) has the {@code ob} parameter. */
    private static boolean firstUriHasOb(String pathValue) {
        int lt = pathValue.indexOf('<');
        int gt = pathValue.indexOf('>', lt + 1);
        if (lt < 0 || gt < 0) {
            return false;
        }
        for (String param : pathValue.substring(lt + 1, gt).split(";")) {
            String name = param.contains("=") ? param.substring(0, param.indexOf('=')) : param;
            if (name.trim().equalsIgnoreCase("ob")) {
                return true;
            }
        }
        return false;
    }

    Response rejection(Request request, Rejected rejected) throws ParseException, InvalidArgumentException {
        Response r = sip.response(rejected.statusCode(), request, rejected.reason());
        if (rejected.minExpires().isPresent()) {
            long min = rejected.minExpires().getAsLong();
            r.setHeader(sip.headers().createMinExpiresHeader((int) Math.min(min, Integer.MAX_VALUE)));
        }
        return r;
    }

    /**
     * Writes a contact parameter back as it came: a value stored with its
     * quotes is a quoted-string (like {@code +sip.instance}, RFC 5626 §4.1)
     * and goes out quoted; an empty value is a flag parameter.
     */
    private static void setParameter(ContactHeader c, String name, String value) throws ParseException {
        if (value.isEmpty()) {
            c.setParameter(name, null);
        } else if (value.length() >= 2 && value.startsWith("\"") && value.endsWith("\"")) {
            ((ParametersHeader) c).setQuotedParameter(name, value.substring(1, value.length() - 1));
        } else {
            c.setParameter(name, value);
        }
    }

    private ContactHeader contact(Binding b, Instant now) throws ParseException, InvalidArgumentException {
        Address address = sip.addresses().createAddress(sip.addresses().createURI(b.contact()));
        ContactHeader c = sip.headers().createContactHeader(address);
        for (Map.Entry<String, String> p : b.params().entrySet()) {
            setParameter(c, p.getKey(), p.getValue());
        }
        if (b.q() != Binding.Q_UNSPECIFIED) {
            c.setQValue(b.q() / 1000f);
        }
        c.setExpires((int) Math.min(b.secondsLeft(now), Integer.MAX_VALUE));
        return c;
    }
}
