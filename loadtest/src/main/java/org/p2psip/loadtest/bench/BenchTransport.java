package org.p2psip.loadtest.bench;

import java.util.Locale;

/** The transport the generator speaks to its target. */
public enum BenchTransport {
    UDP, TCP;

    /** Whether the transport retransmits by itself, which turns Timers A and E off (RFC 3261 §17.1). */
    public boolean reliable() {
        return this == TCP;
    }

    public String label() {
        return name().toLowerCase(Locale.ROOT);
    }
}
