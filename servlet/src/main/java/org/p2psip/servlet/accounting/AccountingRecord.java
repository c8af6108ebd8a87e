package org.p2psip.servlet.accounting;

/**
 * Something a node accounts: what it saw of a call ({@link CallRecord}) or
 * a change to a registration ({@link RegistrationRecord}). SIP threads make
 * these and hand them to an {@link AccountingSink}; one writer thread takes
 * them to the database.
 */
public sealed interface AccountingRecord permits CallRecord, RegistrationRecord {
}
