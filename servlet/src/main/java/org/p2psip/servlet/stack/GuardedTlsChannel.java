package org.p2psip.servlet.stack;

import java.io.IOException;
import java.nio.channels.SocketChannel;
import java.time.Duration;

import gov.nist.javax.sip.stack.NioTcpMessageProcessor;

/**
 * The channel for a TLS connection a peer opened to the node (RFC 3261
 * §26): an {@link OrderedTlsChannel} whose decrypted stream a
 * {@link StreamGuard} checks. Any encrypted bytes, handshake included,
 * count as activity; a connection that never completes its handshake is
 * idle and closed like any other.
 */
final class GuardedTlsChannel extends OrderedTlsChannel implements StreamGuard.Connection {

    /** A refusal is encrypted and queued like any send; the close waits this long for it to go out. */
    private static final Duration REFUSAL_GRACE = Duration.ofMillis(250);

    private final StreamGuard stream;
    private final ConnectionGuard guard;

    GuardedTlsChannel(NioTcpMessageProcessor processor, SocketChannel socket, ConnectionGuard guard, EdgeGuards guards)
            throws IOException {
        super(processor, socket);
        this.guard = guard;
        this.stream = new StreamGuard(guard, guards, socket.socket().getInetAddress(), socket.socket().getPort());
        stream.open(this);
    }

    @Override
    protected void addBytes(byte[] bytes) throws Exception {
        if (!stream.admitted()) {
            return;
        }
        stream.touched();
        super.addBytes(bytes);
    }

    @Override
    public void addPlaintextBytes(byte[] bytes) throws Exception {
        stream.feed(bytes, this);
    }

    @Override
    public void parse(byte[] bytes) throws Exception {
        super.addPlaintextBytes(bytes);
    }

    @Override
    public void refuse(byte[] answer) {
        try {
            sendMessage(answer, false);
        } catch (IOException e) {
            // The peer is gone; closing is all that is left.
        }
        guard.closeLater(this, REFUSAL_GRACE);
    }

    @Override
    protected void close(boolean removeSocket, boolean stopKeepAliveTask) {
        stream.closed();
        super.close(removeSocket, stopKeepAliveTask);
    }
}
