package org.p2psip.servlet.stack;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.channels.SocketChannel;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;

import gov.nist.javax.sip.stack.NIOHandler;
import gov.nist.javax.sip.stack.NioTcpMessageChannel;
import gov.nist.javax.sip.stack.NioTcpMessageProcessor;
import gov.nist.javax.sip.stack.SIPTransactionStack;

/**
 * The TCP connection table of the RI's NIO processor, with outgoing
 * connections that actually stay in it.
 *
 * <p>Why: in JAIN-SIP RI 1.3.0-91, {@code NIOHandler.openOutgoingConnection}
 * puts a freshly connected socket into its table and then, in its
 * {@code finally}, removes it again, because the flag meant to say "connected"
 * is never set. So the table never holds a connection the node opened: the
 * channel built for a forwarded request opens one connection, the send that
 * follows finds the table empty and opens a second, writes there, logs "Old
 * socket different than new socket" and closes the first; and every further
 * request to the same UAS does it all again. Requests go out on connections
 * that are torn down and replaced all the time, and over TCP calls time out.
 *
 * <p>This handler keeps the RI's table (so connections a peer opened to the
 * node, which the RI's channels put there before answering, are still used
 * for responses and for requests to that peer, RFC 3261 §18.1.1 and
 * §18.2.2) and replaces only the two ways in: one connection per
 * destination, opened by whichever thread asks first while the others wait
 * for it, and kept until it closes. Its channel table is a
 * {@link ConcurrentChannelMap}, which the selector and the forwarding
 * threads can share.
 */
final class ConnectionCache extends NIOHandler {

    private final NioTcpMessageProcessor processor;
    private final int connectTimeoutMillis;
    private final AtomicBoolean stopped = new AtomicBoolean();
    /** Connects in progress, by destination; an entry lives only while its connect does. */
    private final ConcurrentHashMap<String, CompletableFuture<SocketChannel>> connecting = new ConcurrentHashMap<>();

    ConnectionCache(SIPTransactionStack stack, NioTcpMessageProcessor processor, int connectTimeoutMillis) {
        super(stack, processor);
        // Before the processor starts: nothing has been connected or accepted yet.
        channelMap = new ConcurrentChannelMap<>();
        this.processor = processor;
        this.connectTimeoutMillis = connectTimeoutMillis;
    }

    @Override
    public SocketChannel createOrReuseSocket(InetAddress address, int port) throws IOException {
        if (stopped.get()) {
            return null;
        }
        return channelTo(address, port);
    }

    @Override
    public SocketChannel sendBytes(InetAddress senderAddress, InetAddress receiverAddress, int port, String transport,
                                   byte[] bytes, boolean retry, NioTcpMessageChannel messageChannel) throws IOException {
        if (stopped.get()) {
            return null;
        }
        SocketChannel channel = channelTo(receiverAddress, port);
        processor.send(channel, bytes);
        return channel;
    }

    @Override
    public void stop() {
        stopped.set(true);
        super.stop();
    }

    /** The open connection to {@code address:port}, connecting once if there is none. */
    private SocketChannel channelTo(InetAddress address, int port) throws IOException {
        String key = makeKey(address, port);
        SocketChannel cached = usable(getSocket(key));
        if (cached != null) {
            return cached;
        }
        CompletableFuture<SocketChannel> mine = new CompletableFuture<>();
        CompletableFuture<SocketChannel> theirs = connecting.putIfAbsent(key, mine);
        if (theirs != null) {
            return await(theirs);
        }
        try {
            // Another thread may have finished connecting between the lookup
            // above and claiming the key.
            SocketChannel channel = usable(getSocket(key));
            if (channel == null) {
                channel = processor.connect(new InetSocketAddress(address, port), processor.getIpAddress(),
                        connectTimeoutMillis);
                putSocket(key, channel);
            }
            mine.complete(channel);
            return channel;
        } catch (IOException | RuntimeException e) {
            mine.completeExceptionally(e);
            throw e;
        } finally {
            // Only after the socket is in the table, so a late caller finds it there.
            connecting.remove(key, mine);
        }
    }

    private static SocketChannel await(CompletableFuture<SocketChannel> connect) throws IOException {
        try {
            return connect.join();
        } catch (CompletionException e) {
            if (e.getCause() instanceof IOException io) {
                throw new IOException(io.getMessage(), io);
            }
            throw e;
        }
    }

    /** {@code channel} if it can still carry a message (a non-blocking connect counts while it is pending). */
    private static SocketChannel usable(SocketChannel channel) {
        if (channel == null || !channel.isOpen()) {
            return null;
        }
        return channel.isConnected() || channel.isConnectionPending() ? channel : null;
    }
}
