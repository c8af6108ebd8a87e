/**
 * {@code p2psip bench}: a SIP load generator for a node or a balancer, with
 * its scenarios (REGISTER, re-REGISTER, call, MESSAGE) and a built-in UAS to
 * call. Load is open-loop ({@link org.p2psip.loadtest.bench.OpenLoopPacer}):
 * requests go out on schedule whether or not earlier ones were answered, so
 * overload shows as failures and latency rather than as a slower offered
 * load. Each {@link org.p2psip.loadtest.bench.Flow} is pure logic, run by a
 * lane that keeps the RFC 3261 client transaction timers
 * ({@link org.p2psip.loadtest.bench.ClientTransaction}).
 * {@link org.p2psip.loadtest.bench.LoadRun} measures at a fixed rate or runs
 * a {@link org.p2psip.loadtest.bench.MaxRateSearch} for the highest rate at
 * which almost every request succeeds with bounded latency.
 */
package org.p2psip.loadtest.bench;
