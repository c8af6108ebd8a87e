package org.p2psip.servlet.lb;

/** The transport a message reached the balancer on (RFC 3261 §18). */
public enum Transport {
    UDP,
    TCP
}
