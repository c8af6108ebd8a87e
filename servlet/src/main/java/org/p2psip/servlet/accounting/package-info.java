/**
 * Call and registration accounting, for people who read it in a spreadsheet
 * ({@code acct export}). {@link org.p2psip.servlet.accounting.AccountingRecorder}
 * turns what the proxy and registrar do into records on SIP threads and hands
 * them to an {@link org.p2psip.servlet.accounting.AccountingSink}, which must
 * never block or throw; {@link org.p2psip.servlet.accounting.BufferedJdbcSink}
 * writes them in batches to PostgreSQL or H2 and keeps them while the database
 * is away. Each node writes only what it saw of a call and the database
 * merges the partial rows ({@link org.p2psip.servlet.accounting.CallRecord}),
 * so nodes neither wait for each other nor spend DHT traffic on accounting.
 */
package org.p2psip.servlet.accounting;
