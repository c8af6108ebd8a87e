package org.p2psip.loadtest;

import java.io.IOException;
import java.net.DatagramPacket;
import java.net.DatagramSocket;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.p2psip.core.auth.DigestChallenge;

/**
 * A minimal SIP UA over UDP for tests that need to see exact responses:
 * it sends REGISTERs and matches answers by Call-ID, retransmitting like a
 * UA's Timer E until a final response or a deadline.
 */
final class SipUdpClient implements AutoCloseable {

    private static final Pattern CALL_ID = Pattern.compile("(?im)^(?:Call-ID|i)\\s*:\\s*(\\S+)");
    private static final Pattern STATUS = Pattern.compile("^SIP/2\\.0 (\\d{3})");

    private final DatagramSocket socket;

    SipUdpClient() throws IOException {
        this(InetAddress.getLoopbackAddress());
    }

    /** A client on {@code address}: another loopback address is another source to the cluster. */
    SipUdpClient(InetAddress address) throws IOException {
        socket = new DatagramSocket(new InetSocketAddress(address, 0));
        socket.setSoTimeout(200);
    }

    /** A REGISTER for {@code user@target}; {@code contact} null makes it a fetch. */
    String register(int targetPort, String user, String contact, String callId, long cseq, Integer expires) {
        return register(targetPort, user, contact, callId, cseq, expires, null);
    }

    /** The same with an Authorization header value, if not null. */
    String register(int targetPort, String user, String contact, String callId, long cseq, Integer expires,
                    String authorization) {
        String target = "127.0.0.1:" + targetPort;
        StringBuilder b = new StringBuilder()
                .append("REGISTER sip:").append(target).append(" SIP/2.0\r\n")
                .append("Via: SIP/2.0/UDP ").append(socket.getLocalAddress().getHostAddress()).append(':')
                .append(socket.getLocalPort())
                .append(";branch=z9hG4bK").append(UUID.randomUUID()).append("\r\n")
                .append("Max-Forwards: 70\r\n")
                .append("From: <sip:").append(user).append('@').append(target).append(">;tag=t").append(cseq).append("\r\n")
                .append("To: <sip:").append(user).append('@').append(target).append(">\r\n")
                .append("Call-ID: ").append(callId).append("\r\n")
                .append("CSeq: ").append(cseq).append(" REGISTER\r\n");
        if (contact != null) {
            b.append("Contact: <").append(contact).append(">\r\n");
        }
        if (expires != null) {
            b.append("Expires: ").append(expires).append("\r\n");
        }
        if (authorization != null) {
            b.append("Authorization: ").append(authorization).append("\r\n");
        }
        return b.append("Content-Length: 0\r\n\r\n").toString();
    }

    /**
     * A REGISTER as a phone with a password sends it: without credentials,
     * then, on the 401, again with CSeq + 1 answering the first challenge
     * (RFC 3261 §22.2). Returns the final answer to the second.
     */
    String registerWithPassword(int port, String user, String password, String contact, String callId, Integer expires)
            throws IOException {
        String challenge = exchange(port, register(port, user, contact, callId, 1, expires));
        if (statusOf(challenge) != 401) {
            return challenge;
        }
        String header = challenge.lines().filter(l -> l.regionMatches(true, 0, "WWW-Authenticate:", 0, 17))
                .findFirst().orElseThrow(() -> new AssertionError("a 401 without a challenge:\n" + challenge));
        return exchange(port, register(port, user, contact, callId, 2, expires,
                answer(header.substring(17).trim(), user, password, "REGISTER", "sip:127.0.0.1:" + port)));
    }

    /** The Authorization value answering one {@code Digest ...} challenge with qop=auth, nc 1. */
    static String answer(String challenge, String user, String password, String method, String uri) {
        return DigestChallenge.parse(challenge).orElseThrow(() -> new AssertionError("not a digest challenge: " + challenge))
                .answer(user, password, method, uri, 1, "0a4f113b");
    }

    /**
     * Sends every request (to the port paired with it) and returns the final
     * response to each, keyed by Call-ID; requests still unanswered at the
     * deadline are missing from the map.
     */
    Map<String, String> exchange(List<Map.Entry<Integer, String>> requests, Duration timeout) throws IOException {
        Map<String, Map.Entry<Integer, String>> pending = new HashMap<>();
        for (Map.Entry<Integer, String> r : requests) {
            pending.put(callIdOf(r.getValue()), r);
        }
        Map<String, String> answers = new HashMap<>();
        Instant deadline = Instant.now().plus(timeout);
        Instant nextSend = Instant.MIN;
        DatagramPacket packet = new DatagramPacket(new byte[65535], 65535);
        while (!pending.isEmpty() && Instant.now().isBefore(deadline)) {
            if (!Instant.now().isBefore(nextSend)) {
                for (Map.Entry<Integer, String> r : pending.values()) {
                    byte[] bytes = r.getValue().getBytes(StandardCharsets.UTF_8);
                    socket.send(new DatagramPacket(bytes, bytes.length, InetAddress.getLoopbackAddress(), r.getKey()));
                }
                nextSend = Instant.now().plusMillis(500);
            }
            try {
                socket.receive(packet);
            } catch (SocketTimeoutException idle) {
                continue;
            }
            String text = new String(packet.getData(), 0, packet.getLength(), StandardCharsets.UTF_8);
            Matcher status = STATUS.matcher(text);
            if (!status.find() || Integer.parseInt(status.group(1)) < 200) {
                continue;
            }
            String callId = callIdOf(text);
            if (pending.remove(callId) != null) {
                answers.put(callId, text);
            }
        }
        return answers;
    }

    /** One request, one final response, or an assertion error. */
    String exchange(int port, String request) throws IOException {
        Map<String, String> answers = exchange(List.of(Map.entry(port, request)), Duration.ofSeconds(5));
        String answer = answers.get(callIdOf(request));
        if (answer == null) {
            throw new AssertionError("no final response to:\n" + request);
        }
        return answer;
    }

    /**
     * One request over a TCP connection of its own, and the first final
     * response on it: for answers that a node keeps short over UDP (an
     * unauthenticated REGISTER query lists only what fits in a few times
     * the request's size).
     */
    String exchangeOverTcp(int port, String request) throws IOException {
        String text = request.replaceFirst("SIP/2\\.0/UDP ", "SIP/2.0/TCP ");
        try (java.net.Socket s = new java.net.Socket(InetAddress.getLoopbackAddress(), port)) {
            s.setSoTimeout(5000);
            s.getOutputStream().write(text.getBytes(StandardCharsets.UTF_8));
            java.io.InputStream in = new java.io.BufferedInputStream(s.getInputStream());
            while (true) {
                StringBuilder head = new StringBuilder();
                while (!head.toString().endsWith("\r\n\r\n")) {
                    int c = in.read();
                    if (c < 0) {
                        throw new AssertionError("connection closed before a final response to:\n" + request);
                    }
                    head.append((char) c);
                }
                Matcher length = Pattern.compile("(?im)^(?:Content-Length|l)\\s*:\\s*(\\d+)").matcher(head);
                int bodyLength = length.find() ? Integer.parseInt(length.group(1)) : 0;
                String body = new String(in.readNBytes(bodyLength), StandardCharsets.UTF_8);
                if (statusOf(head.toString()) >= 200) {
                    return head + body;
                }
            }
        }
    }

    /**
     * Registers every {@code user -> contact} of {@code bindings} through
     * {@code port} (the AOR host named by that port), asking again, a hundred
     * at a time, until each is acknowledged with a 200 or the deadline
     * passes. An overlay that is still settling may refuse a write with a
     * 5xx. Returns the users never acknowledged.
     */
    Set<String> registerUntilAcknowledged(int port, Map<String, String> bindings, Duration deadline)
            throws IOException {
        Set<String> pending = new HashSet<>(bindings.keySet());
        Instant end = Instant.now().plus(deadline);
        while (!pending.isEmpty() && Instant.now().isBefore(end)) {
            List<Map.Entry<Integer, String>> batch = new ArrayList<>();
            Map<String, String> userByCallId = new HashMap<>();
            for (String user : pending.stream().limit(100).toList()) {
                String callId = "ack-" + user + "-" + UUID.randomUUID();
                userByCallId.put(callId, user);
                batch.add(Map.entry(port, register(port, user, bindings.get(user), callId, 1, 3600)));
            }
            exchange(batch, Duration.ofSeconds(20)).forEach((callId, response) -> {
                if (statusOf(response) == 200) {
                    pending.remove(userByCallId.get(callId));
                }
            });
        }
        return pending;
    }

    /**
     * Fetches each user's bindings (AORs named by {@code aorPort}) through
     * {@code readerPort} until every one lists a contact or the deadline
     * passes. While an overlay repairs itself a read may fail (5xx) or find
     * nothing on a node that has not yet received a key's copy; both are
     * asked again. Returns what each user's first non-empty answer listed;
     * users missing from the map were never read back, and
     * {@code lastAnswers} gets the status line of the last answer each of
     * them had (none if it never had one).
     */
    Map<String, List<String>> fetchUntilListed(int aorPort, int readerPort, Set<String> users, Duration deadline,
                                               Map<String, String> lastAnswers) throws IOException {
        Map<String, List<String>> listed = new HashMap<>();
        Set<String> missing = new HashSet<>(users);
        Instant end = Instant.now().plus(deadline);
        while (!missing.isEmpty() && Instant.now().isBefore(end)) {
            List<Map.Entry<Integer, String>> fetches = new ArrayList<>();
            Map<String, String> userByCallId = new HashMap<>();
            for (String user : missing.stream().limit(100).toList()) {
                String callId = "fetch-" + user + "-" + UUID.randomUUID();
                userByCallId.put(callId, user);
                fetches.add(Map.entry(readerPort, register(aorPort, user, null, callId, 1, null)));
            }
            for (Map.Entry<String, String> a : exchange(fetches, Duration.ofSeconds(20)).entrySet()) {
                List<String> contacts = statusOf(a.getValue()) == 200 ? contactsOf(a.getValue()) : List.of();
                String user = userByCallId.get(a.getKey());
                lastAnswers.put(user, a.getValue().lines().findFirst().orElse("")
                        + (contacts.isEmpty() ? " (no contacts)" : ""));
                if (!contacts.isEmpty()) {
                    listed.put(user, contacts);
                    missing.remove(user);
                }
            }
        }
        return listed;
    }

    static String callIdOf(String message) {
        Matcher m = CALL_ID.matcher(message);
        if (!m.find()) {
            throw new IllegalArgumentException("no Call-ID in " + message);
        }
        return m.group(1);
    }

    static int statusOf(String response) {
        Matcher m = STATUS.matcher(response);
        if (!m.find()) {
            throw new AssertionError("not a response: " + response);
        }
        return Integer.parseInt(m.group(1));
    }

    /** Contact URIs listed in a 200 to a REGISTER. */
    static List<String> contactsOf(String response) {
        Matcher m = Pattern.compile("<(sip:[^>]+)>").matcher(
                response.lines().filter(l -> l.matches("(?i)^(Contact|m)\\s*:.*")).reduce("", String::concat));
        List<String> out = new ArrayList<>();
        while (m.find()) {
            out.add(m.group(1));
        }
        return out;
    }

    @Override
    public void close() {
        socket.close();
    }
}
