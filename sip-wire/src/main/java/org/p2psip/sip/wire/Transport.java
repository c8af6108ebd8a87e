package org.p2psip.sip.wire;

/** The transport a message reached the balancer on (RFC 3261 §18; TLS: §26.2, the client's Via says TLS). */
public enum Transport {
    UDP,
    TCP,
    TLS;

    /** Whether messages arrive on a connection (framed by Content-Length, answered on that connection). */
    public boolean stream() {
        return this != UDP;
    }
}
