package org.p2psip.servlet.node;

import java.io.IOException;
import java.net.DatagramPacket;
import java.net.DatagramSocket;
import java.net.InetSocketAddress;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.HashMap;
import java.util.Iterator;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;

import org.p2psip.core.auth.DigestChallenge;

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
 * @param aors     how many distinct AORs the flows cycle through
 * @param window   how many flows are in flight at most
 */
record WarmupLoad(InetSocketAddress target, String domain, Optional<String> password, int aors, int window) {

    /** How a run went. */
    record Result(int started, int ok, int refused, int lost, Duration took) {
    }

    /** The user part of AOR {@code k}, so the node's store can be given their credentials. */
    static String user(int k) {
        return "warmup" + k;
    }

    private static final long LOST_AFTER_NANOS = Duration.ofSeconds(1).toNanos();

    WarmupLoad {
        if (aors < 1 || window < 1 || window > aors) {
            throw new IllegalArgumentException("need 1 <= window <= aors, not window " + window + " aors " + aors);
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
    Result run(int flows, Duration budget) throws IOException {
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
                while (started < flows && inFlight.size() < window) {
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
        String user = user(f.k);
        String uri = "sip:" + domain;
        StringBuilder m = new StringBuilder(640)
                .append("REGISTER ").append(uri).append(" SIP/2.0\r\n")
                .append("Via: SIP/2.0/UDP ").append(local).append(";branch=z9hG4bK-warmup-").append(f.k).append('-')
                .append(f.cseq).append(";rport\r\n")
                .append("Max-Forwards: 70\r\n")
                .append("From: <sip:").append(user).append('@').append(domain).append(">;tag=w").append(f.k).append("\r\n")
                .append("To: <sip:").append(user).append('@').append(domain).append(">\r\n")
                .append("Call-ID: ").append(callId(f.k, local)).append("\r\n")
                .append("CSeq: ").append(f.cseq).append(" REGISTER\r\n")
                .append("Contact: <sip:").append(user).append('@').append(local).append(">\r\n")
                .append("Expires: 3600\r\n");
        if (challenge != null) {
            m.append("Authorization: ").append(challenge.answer(user, password.orElseThrow(), "REGISTER", uri, 1,
                    "w" + f.cseq)).append("\r\n");
        }
        m.append("User-Agent: p2psip warm-up\r\nContent-Length: 0\r\n\r\n");
        byte[] bytes = m.toString().getBytes(StandardCharsets.UTF_8);
        f.sentAt = System.nanoTime();
        socket.send(new DatagramPacket(bytes, bytes.length, target));
    }

    private static String callId(int k, String local) {
        return "warmup-" + k + "@" + local;
    }

    private static String hostPort(DatagramSocket socket) {
        String host = socket.getLocalAddress().getHostAddress();
        return (host.indexOf(':') >= 0 ? "[" + host + "]" : host) + ":" + socket.getLocalPort();
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
