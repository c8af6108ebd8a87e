package org.p2psip.servlet.stack;

import java.io.IOException;
import java.net.DatagramPacket;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.SocketException;
import java.util.Arrays;
import java.util.LinkedList;

import javax.sip.SipStack;

import org.p2psip.core.guard.SourceVerdict;
import org.p2psip.core.guard.ToTagScan;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import gov.nist.javax.sip.SipStackImpl;
import gov.nist.javax.sip.stack.DatagramQueuedMessageDispatch;
import gov.nist.javax.sip.stack.SIPTransactionStack;
import gov.nist.javax.sip.stack.UDPMessageChannel;
import gov.nist.javax.sip.stack.UDPMessageProcessor;

/**
 * The RI's UDP message processor with a receive loop that defends the node
 * before a datagram costs it anything:
 *
 * <ol>
 *   <li>a datagram from a banned or over-rate source is dropped unanswered
 *       ({@link org.p2psip.core.guard.SourceGuard}; answering a flood would
 *       amplify it), and so is a request without credentials over the
 *       budget all sources share ({@link org.p2psip.core.guard.CredentialFreeBudget});</li>
 *   <li>a datagram is received whole, up to 65,535 bytes, into one reused
 *       buffer and copied out at its own length (the RI allocates its
 *       maximum size per datagram and cuts longer ones, then parses what is
 *       left); one over the node's size limit gets 513 Message Too Large
 *       (RFC 3261 §18.1.1, §21.5.14);</li>
 *   <li>when the queue's oldest message has waited too long, a new request
 *       (not ACK or CANCEL, which finish work already accepted) outside a
 *       dialog is answered 503 with Retry-After (RFC 3261 §21.5.4, RFC 5390
 *       §5) from its raw bytes, instead of queueing it into a retransmission
 *       storm; one inside a dialog (a To tag: a BYE ending a call) only when
 *       the queue is full ({@link org.p2psip.core.guard.OverloadGate}).
 *       Responses are always queued: they complete transactions.</li>
 * </ol>
 *
 * <p>The refusals are built and sent by a {@link UdpStatelessResponder} on
 * a thread of its own: this thread does nothing but read, so it never waits
 * for the socket's send lock that the workers contend for.
 */
final class GuardedUdpProcessor extends UDPMessageProcessor {

    private static final Logger LOG = LoggerFactory.getLogger(GuardedUdpProcessor.class);
    private static final int RECEIVE_BUFFER = 65_536;
    private static final int MAX_REPORTED_FAILURES = 10;
    private static final int DEFAULT_WORKERS = 8;

    private final EdgeGuards guards;
    private final String stackName;
    private final UdpStatelessResponder responder;
    private final CallOrderedQueue calls;

    GuardedUdpProcessor(InetAddress address, SIPTransactionStack stack, int port) throws IOException {
        super(address, stack, port);
        this.stackName = stack instanceof SipStack s ? s.getStackName() : "sip";
        this.guards = EdgeGuards.of(stackName);
        this.responder = new UdpStatelessResponder(sock, guards);
        this.calls = new CallOrderedQueue();
        this.messageQueue = calls;
    }

    /**
     * Starts the receiving thread, which raises itself to the highest Java
     * priority once it has started the workers (threads inherit their
     * creator's priority, and the workers must not have it). Under
     * overload it is the one thread that must keep pace with the wire: if it
     * falls behind, the kernel drops datagrams before anyone can answer them
     * 503, clients retransmit, and the load doubles. Java priorities reach
     * the operating system only with {@code -XX:ThreadPriorityPolicy=1},
     * which the launcher sets when it may (root); elsewhere this is a no-op.
     */
    @Override
    public void start() {
        isRunning = true;
        Thread thread = new Thread(this, "MessageProcessorThread-UDP-" + getIpAddress().getHostAddress() + '/'
                + getPort());
        thread.setDaemon(true);
        thread.start();
        Thread answers = new Thread(responder, "UdpStatelessResponder-" + getIpAddress().getHostAddress() + '/'
                + getPort());
        answers.setDaemon(true);
        answers.start();
    }

    @Override
    public void stop() {
        responder.stop();
        super.stop();
    }

    @Override
    public void run() {
        messageChannels = new LinkedList<>();
        for (int i = 0; i < workerThreads(); i++) {
            messageChannels.add(new Channel(sipStack, this, stackName + "-UDPMessageChannelThread-" + i));
        }
        Thread.currentThread().setPriority(Thread.MAX_PRIORITY);
        byte[] buffer = new byte[RECEIVE_BUFFER];
        DatagramPacket packet = new DatagramPacket(buffer, buffer.length);
        int failures = 0;
        while (isRunning) {
            try {
                packet.setData(buffer, 0, buffer.length);
                sock.receive(packet);
                receive(packet);
                failures = 0;
            } catch (SocketException e) {
                if (!isRunning) {
                    return;
                }
                failures = report(e, failures);
            } catch (IOException | RuntimeException e) {
                failures = report(e, failures);
            }
        }
    }

    /** The stack's UDP worker count, as configured ({@code THREAD_POOL_SIZE}; the RI keeps its field to itself). */
    private int workerThreads() {
        if (sipStack instanceof SipStackImpl impl) {
            String value = impl.getConfigurationProperties().getProperty("gov.nist.javax.sip.THREAD_POOL_SIZE");
            if (value != null) {
                try {
                    return Math.max(1, Integer.parseInt(value.trim()));
                } catch (NumberFormatException e) {
                    // the RI refused it at start-up already
                }
            }
        }
        return DEFAULT_WORKERS;
    }

    private void receive(DatagramPacket packet) throws IOException {
        long now = System.nanoTime();
        InetAddress source = packet.getAddress();
        if (guards.sources().admit(source, now) != SourceVerdict.ADMIT) {
            return;
        }
        int length = packet.getLength();
        byte[] data = packet.getData();
        if (!guards.withinCredentialFreeBudget(data, length, now)) {
            return;
        }
        if (length > guards.maxMessageBytes()) {
            guards.countOversized();
            refuse(data, length, packet, 513);
            return;
        }
        if (isNewRequest(data, length)) {
            long oldest = calls.oldestReceptionMillis();
            long waited = oldest < 0 ? 0 : Math.max(0, (System.currentTimeMillis() - oldest) * 1_000_000L);
            if (!guards.overload().admit(waited, calls.size(), now, ToTagScan.carriesToTag(data, length))) {
                guards.countShed();
                refuse(data, length, packet, 503);
                return;
            }
        }
        byte[] copy = Arrays.copyOf(data, length);
        calls.offer(new DatagramQueuedMessageDispatch(
                new DatagramPacket(copy, length, source, packet.getPort()), System.currentTimeMillis()));
    }

    /** A request that would start a transaction: not a response, not ACK or CANCEL. */
    static boolean isNewRequest(byte[] data, int length) {
        return !(startsWith(data, length, "SIP/") || startsWith(data, length, "ACK ")
                || startsWith(data, length, "CANCEL ") || length < 4);
    }

    private static boolean startsWith(byte[] data, int length, String prefix) {
        if (length < prefix.length()) {
            return false;
        }
        for (int i = 0; i < prefix.length(); i++) {
            if (data[i] != prefix.charAt(i)) {
                return false;
            }
        }
        return true;
    }

    /** Hands a new request to the responder to refuse; anything else is dropped unanswered. */
    private void refuse(byte[] data, int length, DatagramPacket packet, int status) {
        if (isNewRequest(data, length)) {
            int reduction = status == 503 ? guards.overload().reductionPercent(System.nanoTime()) : 0;
            responder.offer(new UdpStatelessResponder.Refusal(Arrays.copyOf(data, length),
                    new InetSocketAddress(packet.getAddress(), packet.getPort()), status, reduction));
        }
    }

    private int report(Exception e, int failures) {
        if (failures < MAX_REPORTED_FAILURES) {
            LOG.warn("UDP receive on {}:{} failed: {}", getIpAddress().getHostAddress(), getPort(), e.toString());
        }
        return failures + 1;
    }

    /** The RI's worker, made here because its constructor is visible to subclasses only. */
    private static final class Channel extends UDPMessageChannel {
        Channel(SIPTransactionStack stack, UDPMessageProcessor processor, String threadName) {
            super(stack, processor, threadName);
        }
    }
}
