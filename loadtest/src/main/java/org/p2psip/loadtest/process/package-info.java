/**
 * What the benchmarks read about the process under test, from Linux's
 * {@code /proc}: {@link org.p2psip.loadtest.process.TargetSample} gives its
 * resident set and thread count, so the connections and flood benchmarks can
 * report what a load cost the target in memory. Watching a process is
 * optional ({@code --pid}): with none given, or a figure that cannot be read,
 * the sample holds -1 and the run goes on without it.
 */
package org.p2psip.loadtest.process;
