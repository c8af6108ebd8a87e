package org.p2psip.servlet.node;

import java.io.BufferedInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.DatagramPacket;
import java.net.DatagramSocket;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;

import org.p2psip.core.auth.DigestChallenge;
import org.p2psip.servlet.auth.UnansweredChallengeLog;

/**
 * A phone population in a loop: REGISTER flows sent over UDP to one node,
 * as many at once as a window allows, until a count or a deadline is
 * reached. Each flow is a REGISTER and, when the node challenges it, the
 * same REGISTER again with digest credentials (RFC 3261 §22.2, RFC 7616
 * §3.4); AORs are reused round after round with the same Call-ID and a
 * higher CSeq, so after the first round every flow is a refresh (§10.2.4),
 * what most of a registrar's traffic is.
 *
 * <p>It exists to run a node's request path hot before the node takes real
 * traffic, so it measures nothing beyond what it reports: flows answered,
 * flows that got something other than 200, and flows lost (no answer
 * within a second; the node is never sent a retransmission).
 *
 * @param target   the node's UDP address
 * @param domain   the domain the AORs are in (the node's served domain)
 * @param password every AOR's password when the node authenticates; empty when it does not
 * <p>A fetch-only load sends REGISTERs without a Contact (RFC 3261 §10.3
 * step 6: a query, answered with the bindings there are) and writes
 * nothing: it warms a path in front of a real store (a balancer and its
 * nodes) without leaving a trace in it.
 *
 * @param target    the node's (or balancer's) address
 * @param domain    the domain the AORs are in (the node's served domain)
 * @param password  every AOR's password when the node authenticates; empty: a challenge ends the flow
 * @param aors      how many distinct AORs the flows cycle through
 * @param window    how many flows are in flight at most (over TCP: how many connections)
 * @param fetchOnly whether the REGISTERs only query (no Contact), writing nothing
 * @param perSecond most flows begun per second; 0: as many as the window allows. An element that limits
 *                  each source's rate (the balancer's, Kamailio's pike) would otherwise ban the address the
 *                  warm-up shares with the phones or a load generator on the same host
 */
public record WarmupLoad(InetSocketAddress target, String domain, Optional<String> password, int aors, int window,
                         boolean fetchOnly, int perSecond) {

    /**
     * How a run went.
     *
     * @param started flows begun
     * @param ok      flows answered 2xx
     * @param refused flows answered with another final status (a challenge a fetch-only load does not answer)
     * @param lost    flows not answered within a second, or whose connection failed
     */
    public record Result(int started, int ok, int refused, int lost, Duration took) {
    }

    /** The user part of AOR {@code k}, so the node's store can be given their credentials. */
    static String user(int k) {
        return "warmup" + k;
    }

    private static final long LOST_AFTER_NANOS = Duration.ofSeconds(1).toNanos();

    public WarmupLoad {
        if (aors < 1 || window < 1 || window > aors) {
            throw new IllegalArgumentException("need 1 <= window <= aors, not window " + window + " aors " + aors);
        }
        if (perSecond < 0) {
            throw new IllegalArgumentException("the rate must be 0 (unpaced) or positive, not " + perSecond);
        }
    }

    /** One flow in flight: AOR {@code k}, at CSeq {@code cseq}; {@code challenged} once it sent credentials. */
    private static final class Flow {
        final int k;
        int cseq;
        boolean challenged;
        long sentAt;

        Flow(int k, int cseq) {
            this.k = k;
            this.cseq = cseq;
        }
    }

    /**
     * Runs flows until {@code flows} have ended or {@code budget} is spent,
     * whichever is first.
     */
    public Result run(int flows, Duration budget) throws IOException {
        return run(flows, budget, () -> true);
    }

    /**
     * Runs flows as {@link #run(int, Duration)} does, starting one only
     * while {@code mayStart} says so (a {@link HostCpuGate} on a shared host).
     */
    public Result run(int flows, Duration budget, BooleanSupplier mayStart) throws IOException {
        long start = System.nanoTime();
        long deadline = start + budget.toNanos();
        int[] nextCSeq = new int[aors];
        Map<String, Flow> inFlight = new HashMap<>();
        int started = 0;
        int ok = 0;
        int refused = 0;
        int lost = 0;
        byte[] buffer = new byte[65_535];
        try (DatagramSocket socket = new DatagramSocket(new InetSocketAddress(target.getAddress(), 0))) {
            socket.setSoTimeout(20);
            String local = hostPort(socket);
            while (System.nanoTime() < deadline && (started < flows || !inFlight.isEmpty())) {
                while (started < flows && inFlight.size() < window && due(started, start) && mayStart.getAsBoolean()) {
                    int k = started % aors;
                    if (inFlight.containsKey(callId(k, local))) {
                        break;
                    }
                    nextCSeq[k] += 2;
                    Flow f = new Flow(k, nextCSeq[k] - 1);
                    inFlight.put(callId(k, local), f);
                    send(socket, f, local, null);
                    started++;
                }
                DatagramPacket p = new DatagramPacket(buffer, buffer.length);
                try {
                    socket.receive(p);
                    String answer = new String(p.getData(), 0, p.getLength(), StandardCharsets.UTF_8);
                    Flow f = inFlight.get(header(answer, "call-id", "i"));
                    int status = status(answer);
                    if (f == null || status < 200 || !cseqMatches(answer, f.cseq)) {
                        continue;
                    }
                    Optional<DigestChallenge> challenge = status == 401 && !f.challenged && password.isPresent()
                            ? DigestChallenge.parse(header(answer, "www-authenticate", null))
                            : Optional.empty();
                    if (challenge.isPresent()) {
                        f.challenged = true;
                        f.cseq++;
                        send(socket, f, local, challenge.get());
                        continue;
                    }
                    inFlight.remove(callId(f.k, local));
                    if (status == 200) {
                        ok++;
                    } else {
                        refused++;
                    }
                } catch (SocketTimeoutException e) {
                    // nothing arrived: look for lost flows below
                }
                long now = System.nanoTime();
                for (Iterator<Flow> it = inFlight.values().iterator(); it.hasNext(); ) {
                    if (now - it.next().sentAt > LOST_AFTER_NANOS) {
                        it.remove();
                        lost++;
                    }
                }
            }
        }
        return new Result(started, ok, refused, lost, Duration.ofNanos(System.nanoTime() - start));
    }

    private void send(DatagramSocket socket, Flow f, String local, DigestChallenge challenge) throws IOException {
        byte[] bytes = request(f, local, challenge, "UDP");
        f.sentAt = System.nanoTime();
        socket.send(new DatagramPacket(bytes, bytes.length, target));
    }

    /**
     * Runs flows over TCP, one connection per window slot and one flow at a
     * time on each, until {@code flows} have ended or {@code budget} is spent.
     */
    public Result runTcp(int flows, Duration budget) throws InterruptedException {
        long start = System.nanoTime();
        long deadline = start + budget.toNanos();
        AtomicInteger next = new AtomicInteger();
        AtomicInteger ok = new AtomicInteger();
        AtomicInteger refused = new AtomicInteger();
        AtomicInteger lost = new AtomicInteger();
        List<Thread> threads = new ArrayList<>();
        for (int c = 0; c < window; c++) {
            int connection = c;
            Thread t = new Thread(() -> {
                try (Socket socket = new Socket()) {
                    socket.connect(target, 2_000);
                    socket.setSoTimeout(1_000);
                    socket.setTcpNoDelay(true);
                    String local = hostPort(socket.getLocalAddress().getHostAddress(), socket.getLocalPort());
                    InputStream in = new BufferedInputStream(socket.getInputStream());
                    OutputStream out = socket.getOutputStream();
                    int[] cseq = new int[aors];
                    int n;
                    while (System.nanoTime() < deadline && (n = next.getAndIncrement()) < flows) {
                        long wait = dueAt(n, start) - System.nanoTime();
                        if (wait > 0) {
                            LockSupport.parkNanos(wait);
                        }
                        // Each connection keeps to its own AORs, so no two flows of one AOR overlap.
                        int k = (n / window * window + connection) % aors;
                        cseq[k] += 2;
                        Flow f = new Flow(k, cseq[k] - 1);
                        out.write(request(f, local, null, "TCP"));
                        String answer = readMessage(in);
                        if (status(answer) == 401 && password.isPresent()) {
                            Optional<DigestChallenge> challenge =
                                    DigestChallenge.parse(header(answer, "www-authenticate", null));
                            if (challenge.isPresent()) {
                                f.cseq++;
                                out.write(request(f, local, challenge.get(), "TCP"));
                                answer = readMessage(in);
                            }
                        }
                        (status(answer) / 100 == 2 ? ok : refused).incrementAndGet();
                    }
                } catch (IOException e) {
                    lost.incrementAndGet();
                }
            }, "p2psip-warmup-tcp-" + c);
            t.setDaemon(true);
            t.start();
            threads.add(t);
        }
        for (Thread t : threads) {
            t.join(Math.max(1, TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime()) + 2_000));
        }
        int started = Math.min(next.get(), flows);
        return new Result(started, ok.get(), refused.get(), started - ok.get() - refused.get(),
                Duration.ofNanos(System.nanoTime() - start));
    }

    /** Whether flow {@code n} may begin now under the rate: flow n is due n/perSecond seconds after the start. */
    private boolean due(int n, long start) {
        return System.nanoTime() - dueAt(n, start) >= 0;
    }

    private long dueAt(int n, long start) {
        return perSecond == 0 ? start : start + n * 1_000_000_000L / perSecond;
    }

    /** One final response from a stream: its head up to the blank line and a body of its Content-Length. */
    private static String readMessage(InputStream in) throws IOException {
        while (true) {
            StringBuilder head = new StringBuilder(512);
            int b;
            while ((b = in.read()) >= 0) {
                head.append((char) b);
                int n = head.length();
                if (n >= 4 && head.charAt(n - 1) == '\n' && head.charAt(n - 2) == '\r' && head.charAt(n - 3) == '\n'
                        && head.charAt(n - 4) == '\r') {
                    break;
                }
            }
            if (b < 0) {
                throw new IOException("connection closed");
            }
            String text = head.toString().stripLeading();
            String length = header(text, "content-length", "l");
            int body = length.isEmpty() ? 0 : Integer.parseInt(length);
            in.readNBytes(body);
            if (status(text) >= 200) {
                return text;
            }
        }
    }

    private byte[] request(Flow f, String local, DigestChallenge challenge, String transport) {
        String user = user(f.k);
        String uri = "sip:" + domain;
        StringBuilder m = new StringBuilder(640)
                .append("REGISTER ").append(uri).append(" SIP/2.0\r\n")
                .append("Via: SIP/2.0/").append(transport).append(' ').append(local).append(";branch=z9hG4bK-warmup-").append(f.k).append('-')
                .append(f.cseq).append(";rport\r\n")
                .append("Max-Forwards: 70\r\n")
                .append("From: <sip:").append(user).append('@').append(domain).append(">;tag=w").append(f.k).append("\r\n")
                .append("To: <sip:").append(user).append('@').append(domain).append(">\r\n")
                .append("Call-ID: ").append(callId(f.k, local)).append("\r\n")
                .append("CSeq: ").append(f.cseq).append(" REGISTER\r\n");
        if (!fetchOnly) {
            m.append("Contact: <sip:").append(user).append('@').append(local).append(">\r\n")
                    .append("Expires: 3600\r\n");
        }
        if (challenge != null) {
            m.append("Authorization: ").append(challenge.answer(user, password.orElseThrow(), "REGISTER", uri, 1,
                    "w" + f.cseq)).append("\r\n");
        }
        m.append("User-Agent: ").append(UnansweredChallengeLog.WARM_UP_USER_AGENT)
                .append("\r\nContent-Length: 0\r\n\r\n");
        return m.toString().getBytes(StandardCharsets.UTF_8);
    }

    private static String callId(int k, String local) {
        return "warmup-" + k + "@" + local;
    }

    /** The socket's local address as a Via sent-by or URI host:port, an IPv6 address in brackets. */
    static String hostPort(DatagramSocket socket) {
        return hostPort(socket.getLocalAddress().getHostAddress(), socket.getLocalPort());
    }

    private static String hostPort(String host, int port) {
        return (host.indexOf(':') >= 0 ? "[" + host + "]" : host) + ":" + port;
    }

    /** The status code of a response's status line; 0 for a request or garbage. */
    static int status(String message) {
        if (!message.startsWith("SIP/2.0 ") || message.length() < 11) {
            return 0;
        }
        try {
            return Integer.parseInt(message.substring(8, 11));
        } catch (NumberFormatException e) {
            return 0;
        }
    }

    /** The value of the first header named {@code name} (or its compact form), or "". */
    static String header(String message, String name, String compact) {
        int from = message.indexOf("\r\n");
        while (from >= 0) {
            int end = message.indexOf("\r\n", from + 2);
            if (end < 0 || end == from + 2) {
                return "";
            }
            String line = message.substring(from + 2, end);
            int colon = line.indexOf(':');
            if (colon > 0) {
                String n = line.substring(0, colon).strip().toLowerCase(Locale.ROOT);
                if (n.equals(name) || n.equals(compact)) {
                    return line.substring(colon + 1).strip();
                }
            }
            from = end;
        }
        return "";
    }

    private static boolean cseqMatches(String message, int cseq) {
        String v = header(message, "cseq", null);
        int space = v.indexOf(' ');
        return space > 0 && v.substring(0, space).equals(Integer.toString(cseq));
    }
}
