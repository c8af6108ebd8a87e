package org.p2psip.loadtest.bench;

import java.util.function.Supplier;

/** Makes flow number {@code index} of a run. */
@FunctionalInterface
interface FlowFactory {
    Flow create(long index, FlowContext context, Supplier<String> branches);
}
