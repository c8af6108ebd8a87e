package org.p2psip.servlet.accounting;

/**
 * Where SIP threads hand accounting records. {@link #offer} returns at
 * once and never throws: accounting must not hold up or break the SIP
 * handling it records.
 */
public interface AccountingSink {

    /** A sink that keeps nothing, for a node without accounting. */
    AccountingSink NONE = record -> {
    };

    /** Takes {@code record} for writing, or drops and counts it when there is no room. */
    void offer(AccountingRecord record);
}
