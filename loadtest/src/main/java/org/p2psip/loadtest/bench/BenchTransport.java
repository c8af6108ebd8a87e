package org.p2psip.loadtest.bench;

import java.util.Locale;

/**
 * The transport the generator speaks to its target, or the built-in UAS
 * listens on. TLS is SIP over TLS as RFC 3261 §26.2 has it: the TCP framing
 * (§18.3) inside a TLS 1.2+ session, {@code SIP/2.0/TLS} in Via (§18.2.1)
 * and {@code ;transport=tls} in a {@code sip:} URI (§19.1.1; RFC 5630 §3.1.3
 * keeps the two apart from {@code sips:}, which would ask every hop for TLS).
 */
public enum BenchTransport {
    UDP, TCP, TLS;

    /** Whether the transport retransmits by itself, which turns Timers A and E off (RFC 3261 §17.1). */
    public boolean reliable() {
        return this != UDP;
    }

    /** Whether the transport runs over a connection (TCP, and TLS over TCP) rather than datagrams. */
    public boolean stream() {
        return this != UDP;
    }

    /** The token of Via's sent-protocol (RFC 3261 §20.42): UDP, TCP or TLS. */
    public String viaToken() {
        return name();
    }

    /** The {@code ;transport=} URI parameter a contact on this transport needs; none for UDP, the default (§19.1.1). */
    public String uriParameter() {
        return this == UDP ? "" : ";transport=" + label();
    }

    /** The name used on the command line and in reports: udp, tcp, tls. */
    public String label() {
        return name().toLowerCase(Locale.ROOT);
    }

    /** The transport for a command-line value, case-insensitive. */
    public static BenchTransport parse(String value) {
        for (BenchTransport t : values()) {
            if (t.label().equalsIgnoreCase(value)) {
                return t;
            }
        }
        throw new IllegalArgumentException("'" + value + "' (udp, tcp or tls)");
    }
}
