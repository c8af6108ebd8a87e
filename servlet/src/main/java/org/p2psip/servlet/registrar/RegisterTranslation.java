package org.p2psip.servlet.registrar;

import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.OptionalLong;

import javax.sip.address.SipURI;
import javax.sip.address.URI;
import javax.sip.header.CSeqHeader;
import javax.sip.header.CallIdHeader;
import javax.sip.header.ContactHeader;
import javax.sip.header.ExpiresHeader;
import javax.sip.header.Header;
import javax.sip.header.ToHeader;
import javax.sip.header.ViaHeader;
import javax.sip.message.Request;

import org.p2psip.core.location.AddressOfRecord;
import org.p2psip.core.location.Binding;
import org.p2psip.core.location.ContactSpec;
import org.p2psip.core.location.RegisterRequest;
import org.p2psip.core.location.ServedDomains;
import org.p2psip.core.location.SipUri;
import org.p2psip.core.net.HostPort;
import org.p2psip.servlet.sip.BadRequestException;
import org.p2psip.servlet.sip.HeaderLists;

import gov.nist.core.NameValue;
import gov.nist.javax.sip.address.AddressImpl;
import gov.nist.javax.sip.header.ParametersHeader;
import gov.nist.javax.sip.header.SIPHeader;
import gov.nist.javax.sip.message.SIPMessage;

/**
 * Reads a JAIN-SIP REGISTER into the stack-free {@link RegisterRequest} the
 * location service works on (RFC 3261 §10.3 steps 1 to 5 that are about the
 * message itself; the binding rules of steps 6 to 8 live in core).
 *
 * <p>Everything that makes the request unusable is reported as a
 * {@link BadRequestException} whose message is the 400 reason phrase, so
 * an invalid REGISTER never reaches the location service and writes
 * nothing.
 */
public final class RegisterTranslation {

    private RegisterTranslation() {
    }

    /**
     * Translates {@code request}, which came from {@code source}, for a
     * registrar of {@code domains}: the AOR comes out canonical (RFC 3261
     * §10.3 step 1 and 5: the Request-URI must name a domain served here,
     * and so must the To URI), else 403.
     */
    public static RegisterRequest translate(Request request, HostPort source, ServedDomains domains)
            throws BadRequestException {
        URI requestUri = request.getRequestURI();
        if (requestUri == null || !requestUri.isSipURI()) {
            throw new BadRequestException(416, "Unsupported URI Scheme");
        }
        AddressOfRecord aor = addressOfRecord(request);
        if (!servesRequestUri(requestUri, domains)) {
            throw new BadRequestException(403, "Domain not served here");
        }
        aor = domains.canonical(aor).orElseThrow(() -> new BadRequestException(403, "Domain not served here"));
        List<ContactSpec> contacts = contacts(request);
        OptionalLong expires = expires(request);
        CallIdHeader callId = (CallIdHeader) request.getHeader(CallIdHeader.NAME);
        CSeqHeader cseq = (CSeqHeader) request.getHeader(CSeqHeader.NAME);
        if (callId == null || cseq == null) {
            throw new BadRequestException("Missing " + (callId == null ? "Call-ID" : "CSeq") + " header");
        }
        try {
            return new RegisterRequest(aor, contacts, expires, callId.getCallId(), cseq.getSeqNumber(),
                    path(request), source, transport(request));
        } catch (IllegalArgumentException e) {
            throw new BadRequestException(e.getMessage());
        }
    }

    /**
     * Where the request came from: the packet's source when the stack
     * recorded it, otherwise the top Via's received/sent-by.
     */
    public static HostPort source(Request request) {
        if (request instanceof SIPMessage m && m.getRemoteAddress() != null && m.getRemotePort() > 0) {
            return new HostPort(m.getRemoteAddress().getHostAddress(), m.getRemotePort());
        }
        ViaHeader via = (ViaHeader) request.getHeader(ViaHeader.NAME);
        if (via == null) {
            return new HostPort("0.0.0.0", 0);
        }
        String host = via.getReceived() != null ? via.getReceived() : via.getHost();
        int port = via.getRPort() > 0 ? via.getRPort() : (via.getPort() > 0 ? via.getPort() : 5060);
        return new HostPort(host, port);
    }

    private static boolean servesRequestUri(URI requestUri, ServedDomains domains) throws BadRequestException {
        try {
            return domains.serves(SipUri.parse(requestUri.toString()));
        } catch (IllegalArgumentException e) {
            throw new BadRequestException("Bad Request-URI: " + e.getMessage());
        }
    }

    /** The AOR from the To header, which must be a SIP or SIPS URI (§10.3 step 5, RFC 4475 §3.3.11). */
    static AddressOfRecord addressOfRecord(Request request) throws BadRequestException {
        ToHeader to = (ToHeader) request.getHeader(ToHeader.NAME);
        if (to == null || to.getAddress() == null) {
            throw new BadRequestException("Missing To header");
        }
        URI uri = to.getAddress().getURI();
        if (!(uri instanceof SipURI)) {
            throw new BadRequestException("To must be a SIP or SIPS URI");
        }
        try {
            return SipUri.parse(uri.toString()).toAddressOfRecord();
        } catch (IllegalArgumentException e) {
            throw new BadRequestException("Bad To URI: " + e.getMessage());
        }
    }

    static List<ContactSpec> contacts(Request request) throws BadRequestException {
        List<ContactSpec> specs = new ArrayList<>();
        for (Header h : HeaderLists.of(request, ContactHeader.NAME)) {
            specs.add(contact((ContactHeader) h));
        }
        return specs;
    }

    static ContactSpec contact(ContactHeader contact) throws BadRequestException {
        if (contact.isWildCard() || contact.getAddress() == null || contact.getAddress().isWildcard()) {
            return ContactSpec.wildcard();
        }
        URI uri = contact.getAddress().getURI();
        if (uri instanceof SipURI sip && contact.getAddress() instanceof AddressImpl a
                && a.getAddressType() == AddressImpl.ADDRESS_SPEC && sip.getHeaderNames().hasNext()) {
            // RFC 3261 §20.10: a URI with headers must be enclosed in <>;
            // written bare, the '?' part is ambiguous (RFC 4475 §3.1.2.8 regbadct).
            throw new BadRequestException("Contact URI with headers must be enclosed in angle brackets");
        }
        OptionalLong expires = OptionalLong.empty();
        int q = Binding.Q_UNSPECIFIED;
        Map<String, String> params = new LinkedHashMap<>();
        Iterator<?> names = contact.getParameterNames();
        while (names.hasNext()) {
            String name = ((String) names.next());
            String lower = name.toLowerCase(Locale.ROOT);
            String value = contact.getParameter(name);
            switch (lower) {
                case "expires" -> expires = OptionalLong.of(number(value, "Contact expires"));
                case "q" -> q = qValue(value);
                default -> params.put(lower, asWritten(contact, name, value));
            }
        }
        try {
            return new ContactSpec(uri.toString(), expires, q, params);
        } catch (IllegalArgumentException e) {
            throw new BadRequestException("Bad Contact: " + e.getMessage());
        }
    }

    /** JAIN-SIP strips the quotes of a quoted-string value; keep them so the value survives a round trip. */
    private static String asWritten(ContactHeader contact, String name, String value) {
        if (value == null) {
            return "";
        }
        if (contact instanceof ParametersHeader p) {
            NameValue nv = p.getNameValue(name);
            if (nv != null && nv.isValueQuoted()) {
                return "\"" + value + "\"";
            }
        }
        return value;
    }

    static OptionalLong expires(Request request) throws BadRequestException {
        ExpiresHeader h = request.getExpires();
        if (h == null) {
            return OptionalLong.empty();
        }
        int seconds = h.getExpires();
        if (seconds < 0) {
            throw new BadRequestException("Malformed Expires header");
        }
        return OptionalLong.of(seconds);
    }

    static List<String> path(Request request) {
        List<String> values = new ArrayList<>();
        for (Header h : HeaderLists.of(request, "Path")) {
            values.add(h instanceof SIPHeader s ? s.getHeaderValue().trim() : valueOf(h));
        }
        return values;
    }

    private static String valueOf(Header h) {
        String s = h.toString().trim();
        int colon = s.indexOf(':');
        return colon < 0 ? s : s.substring(colon + 1).trim();
    }

    private static String transport(Request request) {
        ViaHeader via = (ViaHeader) request.getHeader(ViaHeader.NAME);
        String t = via == null ? null : via.getTransport();
        return t == null ? "UDP" : t.toUpperCase(Locale.ROOT);
    }

    /** delta-seconds (RFC 3261 §25.1): digits only; values past 2^32-1 mean "as long as allowed". */
    private static long number(String value, String what) throws BadRequestException {
        if (value == null || value.isEmpty() || value.length() > 20 || !value.chars().allMatch(Character::isDigit)) {
            throw new BadRequestException("Malformed " + what);
        }
        try {
            return Math.min(Long.parseLong(value), 0xFFFF_FFFFL);
        } catch (NumberFormatException e) {
            return 0xFFFF_FFFFL;
        }
    }

    /** qvalue = ( "0" [ "." 0*3DIGIT ] ) / ( "1" [ "." 0*3("0") ] ), kept in thousandths. */
    private static int qValue(String value) throws BadRequestException {
        if (value == null || !value.matches("0(\\.\\d{0,3})?|1(\\.0{0,3})?")) {
            throw new BadRequestException("Contact q must be between 0 and 1 with at most three decimals");
        }
        int dot = value.indexOf('.');
        int whole = value.charAt(0) - '0';
        String frac = dot < 0 ? "" : value.substring(dot + 1);
        frac = (frac + "000").substring(0, 3);
        return whole * 1000 + Integer.parseInt(frac);
    }
}
