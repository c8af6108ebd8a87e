package org.p2psip.servlet.stack;

import java.io.IOException;
import java.lang.reflect.Field;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;

import javax.sip.SipStack;

import gov.nist.core.HostPort;
import gov.nist.javax.sip.SipStackImpl;
import gov.nist.javax.sip.stack.ConnectionOrientedMessageChannel;
import gov.nist.javax.sip.stack.MessageChannel;
import gov.nist.javax.sip.stack.MessageProcessor;
import gov.nist.javax.sip.stack.NioMessageProcessorFactory;
import gov.nist.javax.sip.stack.NIOHandler;
import gov.nist.javax.sip.stack.NioTcpMessageChannel;
import gov.nist.javax.sip.stack.NioTcpMessageProcessor;
import gov.nist.javax.sip.stack.NioTlsMessageProcessor;
import gov.nist.javax.sip.stack.SIPTransactionStack;

/**
 * The RI's NIO message processors with the node's defences: UDP through a
 * {@link GuardedUdpProcessor}; TCP keeps the connections it opens (see
 * {@link ConnectionCache} for the RI defect this works around) and frames,
 * limits and times out those peers open to it ({@link GuardedTcpChannel},
 * {@link ConnectionGuard}). Named by
 * {@code gov.nist.javax.sip.MESSAGE_PROCESSOR_FACTORY}; the RI instantiates
 * it through its no-argument constructor and the processors find their
 * node's {@link EdgeGuards} by stack name.
 */
public final class GuardedMessageProcessorFactory extends NioMessageProcessorFactory {

    /** Pending connections the kernel queues for accept; Linux caps it at net.core.somaxconn. */
    static final int LISTEN_BACKLOG = 1024;

    /** The stack property the RI reads its connect timeout from, and its default there. */
    public static final String CONNECTION_TIMEOUT = "gov.nist.javax.sip.CONNECTION_TIMEOUT";
    private static final int DEFAULT_CONNECT_TIMEOUT_MILLIS = 10_000;

    @Override
    public MessageProcessor createMessageProcessor(SIPTransactionStack stack, InetAddress address, int port,
                                                   String transport) throws IOException {
        if ("TCP".equalsIgnoreCase(transport)) {
            return new GuardedTcpProcessor(address, stack, port, connectTimeout(stack));
        }
        if ("TLS".equalsIgnoreCase(transport)) {
            return new GuardedTlsProcessor(address, stack, port, connectTimeout(stack));
        }
        if ("UDP".equalsIgnoreCase(transport)) {
            GuardedUdpProcessor udp = new GuardedUdpProcessor(address, stack, port);
            sendFromListeningSocket(stack);
            return udp;
        }
        return super.createMessageProcessor(stack, address, port, transport);
    }

    private static int connectTimeout(SIPTransactionStack stack) {
        if (stack instanceof SipStackImpl impl) {
            String value = impl.getConfigurationProperties().getProperty(CONNECTION_TIMEOUT);
            if (value != null) {
                try {
                    return Integer.parseInt(value.trim());
                } catch (NumberFormatException e) {
                    // the RI rejects it at start-up already; keep its default
                }
            }
        }
        return DEFAULT_CONNECT_TIMEOUT_MILLIS;
    }

    /**
     * Sets the RI's package-private {@code udpFlag}, as its own factory does
     * for its UDP processor: without it the stack sends every UDP message
     * from a fresh ephemeral socket instead of the node's port, and answers
     * no longer come from where requests went.
     */
    private static void sendFromListeningSocket(SIPTransactionStack stack) throws IOException {
        try {
            Field flag = SIPTransactionStack.class.getDeclaredField("udpFlag");
            flag.setAccessible(true);
            flag.setBoolean(stack, true);
        } catch (ReflectiveOperationException | RuntimeException e) {
            throw new IOException("this JAIN-SIP RI has no udpFlag to set: " + e, e);
        }
    }

    private static String stackName(SIPTransactionStack stack) {
        return stack instanceof SipStack s ? s.getStackName() : null;
    }

    /** A channel for a connection a peer opened, guarded by {@code connections}. */
    @FunctionalInterface
    private interface GuardedChannels {
        NioTcpMessageChannel open(NioTcpMessageProcessor processor, SocketChannel client, ConnectionGuard connections,
                                  EdgeGuards guards) throws IOException;
    }

    /**
     * What the TCP and TLS processors share: the node's guards, a
     * {@link ConnectionGuard} of their own, and the accept path that gives
     * each accepted connection a guarded channel.
     */
    private static final class AcceptedConnections {
        private final EdgeGuards guards;
        private final ConnectionGuard connections;
        private final GuardedChannels channels;

        AcceptedConnections(SIPTransactionStack stack, String transport, GuardedChannels channels) {
            this.guards = EdgeGuards.of(stackName(stack));
            this.connections = new ConnectionGuard(guards.connections(), guards.sources(),
                    stackName(stack) + "-" + transport);
            this.channels = channels;
            guards.attach(connections);
        }

        /** The channel of {@code client}: the one the RI knows, or a guarded one for a connection just accepted. */
        NioTcpMessageChannel channel(NioTcpMessageProcessor processor, NIOHandler handler, SocketChannel client)
                throws IOException {
            NioTcpMessageChannel known = handler.getMessageChannel(client);
            if (known != null) {
                return known;
            }
            NioTcpMessageChannel channel = channels.open(processor, client, connections, guards);
            handler.putMessageChannel(client, channel);
            return channel;
        }

        /** A listening socket with a backlog fit for bursts of connecting phones (the RI leaves Java's 50). */
        static ServerSocketChannel listen(InetAddress address, int port, Selector selector) throws IOException {
            ServerSocketChannel server = ServerSocketChannel.open();
            server.configureBlocking(false);
            server.socket().bind(new InetSocketAddress(address, port), LISTEN_BACKLOG);
            server.register(selector, SelectionKey.OP_ACCEPT);
            return server;
        }

        void close() {
            connections.close();
        }
    }

    /**
     * The RI's NIO TCP processor with its connection table replaced before
     * it starts, and guarded channels for the connections it accepts.
     */
    private static final class GuardedTcpProcessor extends NioTcpMessageProcessor {
        private final AcceptedConnections accepted;

        GuardedTcpProcessor(InetAddress address, SIPTransactionStack stack, int port, int connectTimeoutMillis) {
            super(address, stack, port);
            // The table the superclass made is dropped unused: nothing has
            // been connected or accepted yet, the selector starts later.
            nioHandler = new ConnectionCache(stack, this, connectTimeoutMillis);
            accepted = new AcceptedConnections(stack, "tcp", GuardedTcpChannel::new);
        }

        /** Called by the RI's selector thread for each connection it accepts. */
        @Override
        public NioTcpMessageChannel createMessageChannel(NioTcpMessageProcessor processor, SocketChannel client)
                throws IOException {
            return accepted.channel(processor, nioHandler, client);
        }

        /** The RI's start, listening with {@link #LISTEN_BACKLOG}. */
        @Override
        public void start() throws IOException {
            selector = Selector.open();
            channel = AcceptedConnections.listen(getIpAddress(), getPort(), selector);
            selectorThread = new Thread(createProcessorTask(), "NioSelector-TCP-" + getIpAddress().getHostAddress()
                    + '/' + getPort());
            selectorThread.start();
        }

        @Override
        public void stop() {
            accepted.close();
            super.stop();
        }
    }

    /**
     * The RI's TLS processor (RFC 3261 §26) with the same table and guards as
     * TCP, whose channels, accepted or opened, are {@link OrderedTlsChannel}s.
     */
    private static final class GuardedTlsProcessor extends NioTlsMessageProcessor {
        private final AcceptedConnections accepted;

        GuardedTlsProcessor(InetAddress address, SIPTransactionStack stack, int port, int connectTimeoutMillis) {
            super(address, stack, port);
            nioHandler = new ConnectionCache(stack, this, connectTimeoutMillis);
            accepted = new AcceptedConnections(stack, "tls", GuardedTlsChannel::new);
        }

        @Override
        public NioTcpMessageChannel createMessageChannel(NioTcpMessageProcessor processor, SocketChannel client)
                throws IOException {
            return accepted.channel(processor, nioHandler, client);
        }

        @Override
        public MessageChannel createMessageChannel(HostPort target) throws IOException {
            return opened(MessageChannel.getKey(target, getTransport()), target.getInetAddress(), target.getPort());
        }

        @Override
        public MessageChannel createMessageChannel(InetAddress peer, int port) throws IOException {
            return opened(MessageChannel.getKey(peer, port, getTransport()), peer, port);
        }

        /** The RI's lookup of a channel the node opens, keyed as the RI keys it, building ours. */
        private synchronized MessageChannel opened(String key, InetAddress peer, int port) throws IOException {
            ConnectionOrientedMessageChannel known = messageChannels.get(key);
            if (known != null) {
                return known;
            }
            OrderedTlsChannel opened = new OrderedTlsChannel(peer, port, sipStack, this);
            messageChannels.put(key, opened);
            selector.wakeup();
            return opened;
        }

        @Override
        public void start() throws IOException {
            selector = Selector.open();
            channel = AcceptedConnections.listen(getIpAddress(), getPort(), selector);
            selectorThread = new Thread(createProcessorTask(), "NioSelector-TLS-" + getIpAddress().getHostAddress()
                    + '/' + getPort());
            selectorThread.start();
        }

        @Override
        public void stop() {
            accepted.close();
            super.stop();
        }
    }
}
