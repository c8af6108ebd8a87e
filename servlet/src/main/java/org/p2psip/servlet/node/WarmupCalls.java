package org.p2psip.servlet.node;

import java.io.IOException;
import java.net.DatagramPacket;
import java.net.DatagramSocket;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.function.BooleanSupplier;

import org.p2psip.core.auth.DigestChallenge;
import org.p2psip.servlet.auth.UnansweredChallengeLog;

/**
 * Calls in a loop through one node, to run its proxy paths hot before it
 * is ready: a UA on one UDP socket that is caller and callee at once.
 *
 * <p>It registers {@code callee} with its own address as Contact (answering
 * a digest challenge when the node sends one), then places calls to that
 * AOR. Each call is what a phone's is to the proxy (RFC 3261 §16): the
 * INVITE's lookup and its server and client transactions; the callee's 200,
 * which copies the INVITE's Record-Route (§12.1.1), relayed back; the ACK
 * and the BYE sent along the recorded route (§12.1.2, §12.2.1.1) and
 * forwarded by loose routing; the BYE's 200 relayed back. Before this stage
 * a node's first calls took 300–900 ms to cross it on two cores, past a
 * proxy's Timer A and a UA's Timer E.
 *
 * <p>Like {@link WarmupLoad} it measures nothing beyond what it reports: a
 * call is ok when its BYE is answered 200, refused when its INVITE gets a
 * final answer other than 2xx, lost when neither happens within two
 * seconds. Nothing is retransmitted.
 *
 * @param target   the node's UDP address
 * @param domain   the domain the callee is in (the node's served domain)
 * @param callee   the user part of the callee's AOR
 * @param password the callee's password when the node authenticates; empty when it does not
 * @param window   how many calls are in flight at most
 */
public record WarmupCalls(InetSocketAddress target, String domain, String callee, Optional<String> password,
                          int window) {

    /**
     * How a run went.
     *
     * @param started calls begun (not counting the callee's registration)
     * @param ok      calls whose BYE was answered 200
     * @param refused calls whose INVITE got a final answer other than 2xx
     * @param lost    calls that ended neither way within two seconds
     */
    public record Result(int started, int ok, int refused, int lost, Duration took) {
    }

    private static final long LOST_AFTER_NANOS = Duration.ofSeconds(2).toNanos();
    private static final String CALLER = "p2psip-warmup-caller";
    /**
     * The caller's host: a name that is no served domain or alias, so the
     * node takes the caller for a stranger calling a local user and asks
     * for no credentials (its own address would be an alias of the node).
     */
    private static final String CALLER_HOST = "warmup.invalid";

    public WarmupCalls {
        if (window < 1) {
            throw new IllegalArgumentException("the window must be at least 1, not " + window);
        }
        if (callee.isBlank()) {
            throw new IllegalArgumentException("no callee");
        }
    }

    /** One call in flight from the caller's side. */
    private static final class Call {
        final int n;
        final long began;
        boolean answered;

        Call(int n, long began) {
            this.n = n;
            this.began = began;
        }
    }

    /**
     * Registers the callee, then runs calls until {@code calls} have ended
     * or {@code budget} is spent, starting one only while {@code mayStart}
     * says so. A callee the node does not register means no calls.
     */
    public Result run(int calls, Duration budget, BooleanSupplier mayStart) throws IOException {
        long start = System.nanoTime();
        long deadline = start + budget.toNanos();
        byte[] buffer = new byte[65_535];
        try (DatagramSocket socket = new DatagramSocket(new InetSocketAddress(target.getAddress(), 0))) {
            socket.setSoTimeout(20);
            String local = WarmupLoad.hostPort(socket);
            if (!register(socket, local, buffer, deadline)) {
                return new Result(0, 0, 0, 0, Duration.ofNanos(System.nanoTime() - start));
            }
            Map<String, Call> inFlight = new HashMap<>();
            int started = 0;
            int ok = 0;
            int refused = 0;
            int lost = 0;
            while (System.nanoTime() < deadline && (started < calls || !inFlight.isEmpty())) {
                while (started < calls && inFlight.size() < window && mayStart.getAsBoolean()) {
                    Call c = new Call(started++, System.nanoTime());
                    inFlight.put(callId(c.n, local), c);
                    send(socket, target, invite(c.n, local));
                }
                DatagramPacket p = new DatagramPacket(buffer, buffer.length);
                try {
                    socket.receive(p);
                    String m = new String(p.getData(), 0, p.getLength(), StandardCharsets.UTF_8);
                    if (!m.startsWith("SIP/2.0 ")) {
                        answerAsCallee(socket, p.getSocketAddress(), m);
                        continue;
                    }
                    Call c = inFlight.get(WarmupLoad.header(m, "call-id", "i"));
                    int status = WarmupLoad.status(m);
                    if (c == null || status < 200) {
                        continue;
                    }
                    String method = cseqMethod(m);
                    if ("INVITE".equals(method) && !c.answered) {
                        c.answered = true;
                        if (status < 300) {
                            List<String> routes = routeSet(m);
                            String remote = uriOf(WarmupLoad.header(m, "contact", "m"));
                            String to = WarmupLoad.header(m, "to", "t");
                            send(socket, target, inDialog("ACK", 1, remote, routes, to, c.n, local));
                            send(socket, target, inDialog("BYE", 2, remote, routes, to, c.n, local));
                        } else {
                            send(socket, target, ackOfFailure(c.n, local, WarmupLoad.header(m, "to", "t")));
                            inFlight.remove(callId(c.n, local));
                            refused++;
                        }
                    } else if ("BYE".equals(method)) {
                        inFlight.remove(callId(c.n, local));
                        if (status == 200) {
                            ok++;
                        } else {
                            refused++;
                        }
                    }
                } catch (SocketTimeoutException e) {
                    // nothing arrived: look for lost calls below
                }
                long now = System.nanoTime();
                for (Iterator<Call> it = inFlight.values().iterator(); it.hasNext(); ) {
                    if (now - it.next().began > LOST_AFTER_NANOS) {
                        it.remove();
                        lost++;
                    }
                }
            }
            return new Result(started, ok, refused, lost, Duration.ofNanos(System.nanoTime() - start));
        }
    }

    /** Registers the callee at this socket; whether the node answered 200 before {@code deadline}. */
    private boolean register(DatagramSocket socket, String local, byte[] buffer, long deadline) throws IOException {
        send(socket, target, registerRequest(local, 1, null));
        boolean challenged = false;
        long giveUp = Math.min(deadline, System.nanoTime() + LOST_AFTER_NANOS);
        while (System.nanoTime() < giveUp) {
            DatagramPacket p = new DatagramPacket(buffer, buffer.length);
            try {
                socket.receive(p);
            } catch (SocketTimeoutException e) {
                continue;
            }
            String m = new String(p.getData(), 0, p.getLength(), StandardCharsets.UTF_8);
            int status = WarmupLoad.status(m);
            if (!registerCallId(local).equals(WarmupLoad.header(m, "call-id", "i")) || status < 200) {
                continue;
            }
            if (status == 401 && !challenged && password.isPresent()) {
                Optional<DigestChallenge> challenge = DigestChallenge.parse(WarmupLoad.header(m, "www-authenticate",
                        null));
                if (challenge.isPresent()) {
                    challenged = true;
                    send(socket, target, registerRequest(local, 2, challenge.get()));
                    continue;
                }
            }
            return status == 200;
        }
        return false;
    }

    /**
     * The callee's side: a 200 to an INVITE (a copy the node's Timer A sent
     * gets the same 200) and to a BYE, sent back where the request came
     * from; an ACK ends there.
     */
    private void answerAsCallee(DatagramSocket socket, SocketAddress from, String request) throws IOException {
        String method = request.substring(0, Math.max(0, request.indexOf(' ')));
        if (!"INVITE".equals(method) && !"BYE".equals(method)) {
            return;
        }
        StringBuilder r = new StringBuilder(640).append("SIP/2.0 200 OK\r\n");
        for (String via : headers(request, "via", "v")) {
            r.append("Via: ").append(via).append("\r\n");
        }
        if ("INVITE".equals(method)) {
            for (String rr : headers(request, "record-route", null)) {
                r.append("Record-Route: ").append(rr).append("\r\n");
            }
        }
        String to = WarmupLoad.header(request, "to", "t");
        r.append("From: ").append(WarmupLoad.header(request, "from", "f")).append("\r\n")
                .append("To: ").append(to).append(to.contains(";tag=") ? "" : ";tag=callee").append("\r\n")
                .append("Call-ID: ").append(WarmupLoad.header(request, "call-id", "i")).append("\r\n")
                .append("CSeq: ").append(WarmupLoad.header(request, "cseq", null)).append("\r\n");
        if ("INVITE".equals(method)) {
            r.append("Contact: <sip:").append(callee).append('@').append(WarmupLoad.hostPort(socket)).append(">\r\n");
        }
        r.append("Content-Length: 0\r\n\r\n");
        send(socket, from, r.toString());
    }

    private String invite(int n, String local) {
        return "INVITE sip:" + callee + "@" + domain + " SIP/2.0\r\n"
                + "Via: SIP/2.0/UDP " + local + ";branch=" + branch(n, "i") + ";rport\r\n"
                + "Max-Forwards: 70\r\n"
                + "From: <sip:" + CALLER + "@" + CALLER_HOST + ">;tag=c" + n + "\r\n"
                + "To: <sip:" + callee + "@" + domain + ">\r\n"
                + "Call-ID: " + callId(n, local) + "\r\n"
                + "CSeq: 1 INVITE\r\n"
                + "Contact: <sip:" + CALLER + "@" + local + ">\r\n"
                + "User-Agent: " + UnansweredChallengeLog.WARM_UP_USER_AGENT + "\r\n"
                + "Content-Length: 0\r\n\r\n";
    }

    /** The ACK of a non-2xx answer: hop by hop, the INVITE's branch and Request-URI (RFC 3261 §17.1.1.3). */
    private String ackOfFailure(int n, String local, String to) {
        return "ACK sip:" + callee + "@" + domain + " SIP/2.0\r\n"
                + "Via: SIP/2.0/UDP " + local + ";branch=" + branch(n, "i") + ";rport\r\n"
                + "Max-Forwards: 70\r\n"
                + "From: <sip:" + CALLER + "@" + CALLER_HOST + ">;tag=c" + n + "\r\n"
                + "To: " + to + "\r\n"
                + "Call-ID: " + callId(n, local) + "\r\n"
                + "CSeq: 1 ACK\r\n"
                + "Content-Length: 0\r\n\r\n";
    }

    /** A request within the call's dialog: to the remote target, along the route set (RFC 3261 §12.2.1.1). */
    private String inDialog(String method, int cseq, String remote, List<String> routes, String to, int n,
                            String local) {
        StringBuilder m = new StringBuilder(640)
                .append(method).append(' ').append(remote).append(" SIP/2.0\r\n")
                .append("Via: SIP/2.0/UDP ").append(local).append(";branch=").append(branch(n, method))
                .append(";rport\r\n");
        if (!routes.isEmpty()) {
            m.append("Route: ").append(String.join(", ", routes)).append("\r\n");
        }
        return m.append("Max-Forwards: 70\r\n")
                .append("From: <sip:").append(CALLER).append('@').append(CALLER_HOST).append(">;tag=c").append(n)
                .append("\r\n")
                .append("To: ").append(to).append("\r\n")
                .append("Call-ID: ").append(callId(n, local)).append("\r\n")
                .append("CSeq: ").append(cseq).append(' ').append(method).append("\r\n")
                .append("User-Agent: ").append(UnansweredChallengeLog.WARM_UP_USER_AGENT).append("\r\n")
                .append("Content-Length: 0\r\n\r\n").toString();
    }

    private String registerRequest(String local, int cseq, DigestChallenge challenge) {
        String uri = "sip:" + domain;
        StringBuilder m = new StringBuilder(640)
                .append("REGISTER ").append(uri).append(" SIP/2.0\r\n")
                .append("Via: SIP/2.0/UDP ").append(local).append(";branch=z9hG4bK-warmup-callee-").append(cseq)
                .append(";rport\r\n")
                .append("Max-Forwards: 70\r\n")
                .append("From: <sip:").append(callee).append('@').append(domain).append(">;tag=r\r\n")
                .append("To: <sip:").append(callee).append('@').append(domain).append(">\r\n")
                .append("Call-ID: ").append(registerCallId(local)).append("\r\n")
                .append("CSeq: ").append(cseq).append(" REGISTER\r\n")
                .append("Contact: <sip:").append(callee).append('@').append(local).append(">\r\n")
                .append("Expires: 600\r\n");
        if (challenge != null) {
            m.append("Authorization: ").append(challenge.answer(callee, password.orElseThrow(), "REGISTER", uri, 1,
                    "wc" + cseq)).append("\r\n");
        }
        return m.append("User-Agent: ").append(UnansweredChallengeLog.WARM_UP_USER_AGENT)
                .append("\r\nContent-Length: 0\r\n\r\n").toString();
    }

    /** The route set a caller takes from a 2xx: its Record-Route values in reverse order (RFC 3261 §12.1.2). */
    static List<String> routeSet(String response) {
        List<String> values = new ArrayList<>();
        for (String header : headers(response, "record-route", null)) {
            values.addAll(splitValues(header));
        }
        Collections.reverse(values);
        return values;
    }

    /** The URI inside a name-addr's angle brackets, or the value itself when it has none. */
    static String uriOf(String nameAddr) {
        int open = nameAddr.indexOf('<');
        int close = nameAddr.indexOf('>', open + 1);
        return open >= 0 && close > open ? nameAddr.substring(open + 1, close) : nameAddr.strip();
    }

    /** Every value of the headers named {@code name} (or its compact form), in order, one per header line. */
    static List<String> headers(String message, String name, String compact) {
        List<String> values = new ArrayList<>();
        int head = message.indexOf("\r\n\r\n");
        String[] lines = (head < 0 ? message : message.substring(0, head)).split("\r\n");
        for (int i = 1; i < lines.length; i++) {
            int colon = lines[i].indexOf(':');
            if (colon > 0) {
                String n = lines[i].substring(0, colon).strip().toLowerCase(Locale.ROOT);
                if (n.equals(name) || n.equals(compact)) {
                    values.add(lines[i].substring(colon + 1).strip());
                }
            }
        }
        return values;
    }

    /** A header line's comma-separated values, commas inside angle brackets or quotes kept. */
    static List<String> splitValues(String header) {
        List<String> values = new ArrayList<>();
        boolean inAngle = false;
        boolean inQuote = false;
        int from = 0;
        for (int i = 0; i < header.length(); i++) {
            char c = header.charAt(i);
            if (c == '"') {
                inQuote = !inQuote;
            } else if (!inQuote && c == '<') {
                inAngle = true;
            } else if (!inQuote && c == '>') {
                inAngle = false;
            } else if (c == ',' && !inAngle && !inQuote) {
                values.add(header.substring(from, i).strip());
                from = i + 1;
            }
        }
        values.add(header.substring(from).strip());
        values.removeIf(String::isEmpty);
        return values;
    }

    private static String cseqMethod(String message) {
        String v = WarmupLoad.header(message, "cseq", null);
        int space = v.indexOf(' ');
        return space > 0 ? v.substring(space + 1).strip() : "";
    }

    private static String branch(int n, String kind) {
        return "z9hG4bK-warmup-call-" + n + "-" + kind.toLowerCase(Locale.ROOT);
    }

    private static String callId(int n, String local) {
        return "warmup-call-" + n + "@" + local;
    }

    private static String registerCallId(String local) {
        return "warmup-callee@" + local;
    }

    private static void send(DatagramSocket socket, SocketAddress to, String message) throws IOException {
        byte[] bytes = message.getBytes(StandardCharsets.UTF_8);
        socket.send(new DatagramPacket(bytes, bytes.length, to));
    }
}
