package org.p2psip.servlet.stack;

import java.io.IOException;
import java.net.InetAddress;
import java.nio.channels.SocketChannel;

import gov.nist.javax.sip.stack.NioTcpMessageProcessor;
import gov.nist.javax.sip.stack.NioTlsMessageChannel;
import gov.nist.javax.sip.stack.SIPTransactionStack;

/**
 * The RI's TLS channel with every record written in the order its engine
 * sealed it (RFC 8446 §5.3, RFC 5246 §6.2.3.3: a record's sequence number is
 * implicit, so a record overtaken on the wire does not decrypt).
 *
 * <p>Why: in JAIN-SIP RI 1.3.0-91 the {@code SSLStateMachine} of a channel
 * seals messages under one lock, on the thread that sends them, and seals
 * its own handshake replies under another, on the selector thread that
 * unwraps what the peer sent. Each queues its record for the socket only
 * after sealing it. So when a handshake finishes while a message is being
 * sent, the message, sealed with the new keys, can be queued before the
 * Finished sealed just ahead of it, and the peer drops the connection with
 * "Tag mismatch". One lock per channel, held from sealing to queueing in
 * both directions, keeps the socket's order the engine's.
 *
 * <p>Holding it while unwrapping also covers the plaintext's parse; that
 * never waits for a sender, since a sender only seals and queues.
 */
class OrderedTlsChannel extends NioTlsMessageChannel {

    /** Taken around every use of the engine that can produce a record. */
    private final Object records = new Object();

    /** A channel for a connection a peer opened to the node. */
    OrderedTlsChannel(NioTcpMessageProcessor processor, SocketChannel socket) throws IOException {
        super(processor, socket);
    }

    /** A channel the node opens to {@code peer:port}; cached by the processor that made it. */
    OrderedTlsChannel(InetAddress peer, int port, SIPTransactionStack stack, NioTcpMessageProcessor processor)
            throws IOException {
        super(peer, port, stack, processor);
        isCached = true;
    }

    @Override
    protected void addBytes(byte[] bytes) throws Exception {
        synchronized (records) {
            super.addBytes(bytes);
        }
    }

    @Override
    protected void sendMessage(byte[] msg, boolean isClient) throws IOException {
        synchronized (records) {
            super.sendMessage(msg, isClient);
        }
    }

    @Override
    public void sendMessage(byte[] message, InetAddress receiverAddress, int receiverPort, boolean retry)
            throws IOException {
        synchronized (records) {
            super.sendMessage(message, receiverAddress, receiverPort, retry);
        }
    }
}
