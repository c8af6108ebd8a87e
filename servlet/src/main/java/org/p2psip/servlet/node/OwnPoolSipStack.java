package org.p2psip.servlet.node;

import java.util.Properties;
import java.util.concurrent.ScheduledExecutorService;

import javax.sip.PeerUnavailableException;

import gov.nist.javax.sip.SipStackImpl;
import gov.nist.javax.sip.ThreadAffinityExecutor;

/**
 * The RI's SIP stack with a dispatch pool of its own.
 *
 * <p>The RI runs every message read from TCP or TLS, and the connects and
 * self-routed sends, on one pool it keeps in a static field: all the stacks
 * of a JVM share it, and stopping any of them shuts it down for all. So does
 * the RI's finalizer, which stops a stack again when it is collected, long
 * after it was stopped. A node sharing a JVM with a stack that was stopped
 * or collected then lost the TCP messages that arrived meanwhile (the
 * dispatch was refused by a shut pool, or found none); in-JVM clusters and
 * every test suite that starts nodes one after another do share a JVM. Each
 * stack here owns its pool and shuts down only that one.
 */
final class OwnPoolSipStack extends SipStackImpl {

    private final ScheduledExecutorService dispatch;

    OwnPoolSipStack(Properties properties, int threads) throws PeerUnavailableException {
        super(properties);
        this.dispatch = new ThreadAffinityExecutor(threads);
    }

    @Override
    public ScheduledExecutorService getSelfRoutingThreadpoolExecutor() {
        return dispatch;
    }

    @Override
    public void stopStack() {
        try {
            super.stopStack();
        } finally {
            dispatch.shutdown();
        }
    }
}
