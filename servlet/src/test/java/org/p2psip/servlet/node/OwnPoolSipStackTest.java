package org.p2psip.servlet.node;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;

/**
 * Two stacks in one JVM, as in-JVM clusters and the test suites have them:
 * stopping one must leave the other's TCP dispatch running. With the RI's
 * shared static pool, the second stop shut the first stack's pool too.
 */
class OwnPoolSipStackTest {

    private static OwnPoolSipStack stack() throws Exception {
        return new OwnPoolSipStack(StackProperties.forNode("pool-test-" + UUID.randomUUID(), 2, false), 2);
    }

    @Test
    void stoppingOneStackLeavesAnotherStacksDispatchRunning() throws Exception {
        OwnPoolSipStack running = stack();
        OwnPoolSipStack stopped = stack();
        try {
            assertNotSame(running.getSelfRoutingThreadpoolExecutor(), stopped.getSelfRoutingThreadpoolExecutor());

            stopped.stop();

            assertTrue(stopped.getSelfRoutingThreadpoolExecutor().isShutdown(), "a stopped stack keeps no threads");
            assertFalse(running.getSelfRoutingThreadpoolExecutor().isShutdown());
            CompletableFuture<String> ran = new CompletableFuture<>();
            running.getSelfRoutingThreadpoolExecutor().execute(() -> ran.complete("dispatched"));
            assertEquals("dispatched", ran.get(5, TimeUnit.SECONDS));
        } finally {
            running.stop();
        }
    }
}
