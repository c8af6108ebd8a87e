package org.p2psip.servlet.stack;

import java.io.IOException;
import java.nio.channels.SocketChannel;

import gov.nist.javax.sip.stack.NioTcpMessageChannel;
import gov.nist.javax.sip.stack.NioTcpMessageProcessor;

/**
 * The RI's channel for a TCP connection a peer opened to the node, with
 * its stream checked by a {@link StreamGuard} before the RI parses it.
 */
final class GuardedTcpChannel extends NioTcpMessageChannel implements StreamGuard.Connection {

    private final StreamGuard stream;
    private final ConnectionGuard guard;

    GuardedTcpChannel(NioTcpMessageProcessor processor, SocketChannel socket, ConnectionGuard guard, EdgeGuards guards)
            throws IOException {
        super(processor, socket);
        this.messageProcessor = processor;
        this.guard = guard;
        this.stream = new StreamGuard(guard, guards, socket.socket().getInetAddress(), socket.socket().getPort());
        stream.open(this);
    }

    @Override
    protected void addBytes(byte[] bytes) throws Exception {
        stream.feed(bytes, this);
    }

    @Override
    public void parse(byte[] bytes) throws Exception {
        super.addBytes(bytes);
    }

    @Override
    public void refuse(byte[] answer) {
        StreamGuard.writeThenClose(socketChannel, answer, guard, this);
    }

    @Override
    protected void close(boolean removeSocket, boolean stopKeepAliveTask) {
        stream.closed();
        super.close(removeSocket, stopKeepAliveTask);
    }
}
