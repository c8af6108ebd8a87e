package org.p2psip.servlet.stack;

import java.io.IOException;
import java.net.DatagramPacket;
import java.net.DatagramSocket;
import java.net.InetSocketAddress;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.LongAdder;

import org.p2psip.sip.wire.MalformedSipException;
import org.p2psip.sip.wire.SipFrame;
import org.p2psip.sip.wire.SipMessage;
import org.p2psip.sip.wire.SipParser;
import org.p2psip.sip.wire.Transport;

/**
 * Builds and sends the UDP processor's stateless refusals (503 under
 * overload, 513 over the size limit; RFC 3261 §8.2.6) on a thread of its
 * own.
 *
 * <p>Every send on a datagram socket takes the socket's one send lock,
 * which the stack's workers hold in turn for each response; on a loaded
 * machine a worker preempted while holding it stalls every other sender
 * for a time slice. The receiving thread must never be that other sender:
 * while it waits the kernel drops what it has not read, clients
 * retransmit, and shedding load becomes the reason for more of it. So
 * the receiving thread only hands the request's bytes over, and when this
 * thread falls behind by {@link #CAPACITY} refusals it drops the newest,
 * which the client retransmits as it would a lost datagram.
 */
final class UdpStatelessResponder implements Runnable {

    static final int CAPACITY = 4_096;
    private static final int MIN_REDUCTION = 20;
    private static final long OC_VALIDITY_MILLIS = 1_000;

    /**
     * One refusal to send: the request as received, whom to, which answer,
     * and for a 503 the share the receiving thread's overload gate asks
     * upstream to divert (read there: the gate is that thread's alone).
     */
    record Refusal(byte[] request, InetSocketAddress sender, int status, int reductionPercent) {
        Refusal {
            if (status != 503 && status != 513) {
                throw new IllegalArgumentException("not a stateless refusal: " + status);
            }
        }
    }

    private final BlockingQueue<Refusal> refusals = new LinkedBlockingQueue<>(CAPACITY);
    private final LongAdder dropped = new LongAdder();
    private final DatagramSocket socket;
    private final EdgeGuards guards;
    private volatile boolean running = true;

    UdpStatelessResponder(DatagramSocket socket, EdgeGuards guards) {
        this.socket = socket;
        this.guards = guards;
    }

    /** Queues a refusal without waiting; false when the queue is full and it was dropped. */
    boolean offer(Refusal refusal) {
        if (refusals.offer(refusal)) {
            return true;
        }
        dropped.increment();
        return false;
    }

    /** Refusals dropped because this thread had fallen behind. */
    long dropped() {
        return dropped.sum();
    }

    void stop() {
        running = false;
    }

    @Override
    public void run() {
        while (running) {
            try {
                Refusal next = refusals.poll(1, TimeUnit.SECONDS);
                if (next != null) {
                    send(next);
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            } catch (RuntimeException e) {
                // one unanswerable request must not end the answers to the rest
            }
        }
    }

    private void send(Refusal refusal) {
        byte[] response = answer(refusal);
        if (response == null) {
            return;
        }
        try {
            socket.send(new DatagramPacket(response, response.length, refusal.sender()));
        } catch (IOException e) {
            // The sender is gone or unreachable; it retransmits or gives up.
        }
    }

    /** The refusal's bytes, or null when the request holds too little to answer. */
    private byte[] answer(Refusal refusal) {
        SipMessage request;
        try {
            request = SipParser.parse(new SipFrame(refusal.request(), refusal.sender(), Transport.UDP, 0));
        } catch (MalformedSipException | RuntimeException e) {
            return null;
        }
        if (refusal.status() == 513) {
            return StatelessAnswers.to(request, 513, "Message Too Large");
        }
        byte[] response = StatelessAnswers.to(request, 503, "Service Unavailable",
                "Retry-After: " + guards.retryAfter().toSeconds());
        if (response == null) {
            return null;
        }
        // Ask the balancer, if it offered overload control, to divert at
        // least a fifth of this node's new requests for the next second. The
        // oc-seq is the wall clock's milliseconds, as the DHT admission's is,
        // so the balancer orders both kinds of instruction alike.
        return OverloadFeedback.answerOffer(response, Math.max(MIN_REDUCTION, refusal.reductionPercent()),
                OC_VALIDITY_MILLIS, System.currentTimeMillis());
    }
}
