package org.p2psip.servlet.node;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Arrays;
import java.util.Map;
import java.util.UUID;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.extension.TestExecutionExceptionHandler;
import org.p2psip.core.net.HostPort;
import org.p2psip.core.testing.RequestText;
import org.p2psip.core.testing.SipText;
import org.p2psip.core.testing.TcpPeer;
import org.p2psip.core.testing.UdpPeer;

/**
 * Calls through a node where one side speaks TCP, on real sockets on
 * 127.0.0.1: requests the node forwards over TCP must reach the UAS on
 * every call, and a UAC connected over TCP must get its responses and the
 * callee's requests on the connection it opened (RFC 3261 §18).
 */
class TcpProxyIntegrationTest {

    private static final int CALLS = 6;

    private static FrontNode node;
    private String user;

    @BeforeAll
    static void startNode() throws Exception {
        node = FrontNode.start(NodeSettings.local(new HostPort("127.0.0.1", 0))
                .withTrust(TrustSettings.open("example.com")));
    }

    /**
     * A TCP message the node never processed has failed these tests inside
     * full builds only (not when run alone). The failure says what the node
     * counted and, one line each, what the threads that carry its TCP
     * messages were doing, so that a stuck dispatch thread can be told from
     * a lost message even where only a build's summary is kept.
     */
    @RegisterExtension
    static final TestExecutionExceptionHandler THREADS_ON_FAILURE = (context, failure) -> {
        StringBuilder why = new StringBuilder(String.valueOf(failure.getMessage()))
                .append("\nnode: dropped ").append(node.droppedMessages())
                .append(", rejected ").append(node.rejectedMessages())
                .append(", forwarded ").append(node.forwardedRequests());
        int idle = 0;
        for (Map.Entry<Thread, StackTraceElement[]> t : Thread.getAllStackTraces().entrySet()) {
            StackTraceElement[] stack = t.getValue();
            if (t.getKey() == Thread.currentThread() || !carriesSip(t.getKey(), stack)) {
                continue;
            }
            if (waitsForWork(stack)) {
                idle++;
                continue;
            }
            why.append('\n').append(t.getKey().getName()).append(' ').append(t.getKey().getState());
            for (int i = 0; i < Math.min(6, stack.length); i++) {
                why.append(i == 0 ? " at " : " < ").append(stack[i].getClassName().replaceAll(".*\\.", ""))
                        .append('.').append(stack[i].getMethodName()).append(':').append(stack[i].getLineNumber());
            }
        }
        why.append("\n").append(idle).append(" more of the stack's threads waiting for work");
        AssertionError detailed = new AssertionError(why.toString(), failure);
        detailed.setStackTrace(failure.getStackTrace());
        throw detailed;
    };

    /** A thread of the SIP stack or of the node's code. */
    private static boolean carriesSip(Thread thread, StackTraceElement[] stack) {
        String name = thread.getName();
        return name.contains("AffinityJAIN") || name.startsWith("NioSelector") || name.contains("MessageChannelThread")
                || Arrays.stream(stack).anyMatch(f -> f.getClassName().startsWith("org.p2psip.servlet")
                        || f.getClassName().startsWith("gov.nist"));
    }

    /** Parked in an executor's or a queue's wait for its next task: nothing is stuck there. */
    private static boolean waitsForWork(StackTraceElement[] stack) {
        return Arrays.stream(stack).limit(12).anyMatch(f -> f.getMethodName().equals("getTask")
                || f.getClassName().endsWith("CallOrderedQueue") && f.getMethodName().equals("poll")
                || f.getClassName().endsWith("LinkedBlockingQueue") && f.getMethodName().equals("poll")
                || f.getClassName().endsWith("EventScanner") && f.getMethodName().equals("run"));
    }

    @AfterAll
    static void stopNode() {
        node.close();
    }

    @BeforeEach
    void newUser() {
        user = "tcp-callee-" + UUID.randomUUID();
    }

    private String aor() {
        return "sip:" + user + "@example.com";
    }

    private void registerOverUdp(String contact) throws Exception {
        try (UdpPeer registrar = new UdpPeer()) {
            registrar.send(RequestText.standard("REGISTER", "sip:example.com", registrar.hostPort(), aor(), aor(),
                    "reg-" + UUID.randomUUID(), 1).with("Contact: <" + contact + ">").text(), node.sipAddress());
            registrar.expectResponse("REGISTER", 200);
        }
    }

    @Test
    void consecutiveCallsReachATcpCalleeOnOneConnection() throws Exception {
        try (TcpPeer callee = new TcpPeer(); UdpPeer caller = new UdpPeer()) {
            String contact = "sip:" + user + "@" + callee.hostPort() + ";transport=tcp";
            registerOverUdp(contact);

            TcpPeer.Connection first = null;
            for (int call = 1; call <= CALLS; call++) {
                RequestText invite = RequestText.standard("INVITE", aor(), caller.hostPort(), "sip:alice@example.com",
                        aor(), "tcp-call-" + call + "-" + UUID.randomUUID(), 1)
                        .with("Contact: <sip:alice@" + caller.hostPort() + ">");
                caller.send(invite.text(), node.sipAddress());

                TcpPeer.Received inv = callee.expectRequest("INVITE");
                assertEquals(contact, inv.message().requestUri(), "call " + call);
                assertTrue(inv.message().header("via").orElse("").startsWith("SIP/2.0/TCP"),
                        "the node's Via names the transport it used: " + inv.message().header("via"));
                if (first == null) {
                    first = inv.connection();
                }
                // RFC 3261 §18.1.1: the node reuses its connection to the same
                // destination instead of opening one per request.
                assertSame(first, inv.connection(), "call " + call + " came on " + inv.connection());

                String toTag = UdpPeer.tag();
                inv.connection().send(inv.message().response(200, "OK", toTag, "Contact: <" + contact + ">"));
                SipText ok = caller.expectResponse("INVITE", 200);

                caller.send(inDialog("ACK", ok, 1, caller.hostPort(), "UDP"), node.sipAddress());
                TcpPeer.Received ack = callee.expectRequest("ACK");
                assertEquals(contact, ack.message().requestUri());

                caller.send(inDialog("BYE", ok, 2, caller.hostPort(), "UDP"), node.sipAddress());
                TcpPeer.Received bye = callee.expectRequest("BYE");
                bye.connection().send(bye.message().response(200, "OK", null));
                caller.expectResponse("BYE", 200);
            }
            assertEquals(1, callee.accepted().size(), "connections the node opened: " + callee.accepted());
        }
    }

    @Test
    void tcpCallerGetsResponsesAndTheCalleesByeOnItsOwnConnection() throws Exception {
        try (TcpPeer caller = new TcpPeer(); UdpPeer callee = new UdpPeer()) {
            String contact = "sip:" + user + "@" + callee.hostPort();
            registerOverUdp(contact);

            for (int call = 1; call <= CALLS; call++) {
                TcpPeer.Connection connection = caller.connect(node.sipAddress());
                // The caller advertises the connection's own address, as a UA
                // that cannot accept connections does: the node can only reach
                // it on this connection.
                String callerContact = "sip:alice@" + connection.localHostPort() + ";transport=tcp";
                String invite = RequestText.standard("INVITE", aor(), connection.localHostPort(),
                                "sip:alice@example.com", aor(), "tcp-uac-" + call + "-" + UUID.randomUUID(), 1)
                        .replace("Via:", "Via: SIP/2.0/TCP " + connection.localHostPort() + ";branch=" + UdpPeer.branch())
                        .with("Contact: <" + callerContact + ">")
                        .text();
                connection.send(invite);

                TcpPeer.Received trying = caller.expectResponse("INVITE", 100);
                assertSame(connection, trying.connection());
                SipText inv = callee.expectRequest("INVITE");
                String recordRoute = inv.header("record-route").orElseThrow();
                assertTrue(recordRoute.contains("transport=tcp"), "in-dialog requests come back over TCP: " + recordRoute);
                String toTag = UdpPeer.tag();
                callee.send(inv.response(200, "OK", toTag, "Contact: <" + contact + ">"), node.sipAddress());
                TcpPeer.Received ok = caller.expectResponse("INVITE", 200);
                assertSame(connection, ok.connection(), "call " + call);

                connection.send(inDialog("ACK", ok.message(), 1, connection.localHostPort(), "TCP"));
                callee.expectRequest("ACK");

                // The callee hangs up: its BYE follows the Record-Route to the
                // node and then the caller's Contact, which is this connection.
                String bye = RequestText.request("BYE", callerContact)
                        .with("Via: SIP/2.0/UDP " + callee.hostPort() + ";branch=" + UdpPeer.branch())
                        .with("Route: " + recordRoute)
                        .with("From: " + ok.message().header("to").orElseThrow())
                        .with("To: " + ok.message().header("from").orElseThrow())
                        .with("Call-ID: " + ok.message().header("call-id").orElseThrow())
                        .with("CSeq: 1 BYE")
                        .with("Max-Forwards: 70")
                        .text();
                callee.send(bye, node.sipAddress());
                TcpPeer.Received byeIn = caller.expectRequest("BYE");
                assertSame(connection, byeIn.connection(), "call " + call);
                connection.send(byeIn.message().response(200, "OK", null));
                callee.expectResponse("BYE", 200);
            }
            assertEquals(0, caller.accepted().size(), "the node opened connections: " + caller.accepted());
        }
    }

    /** An in-dialog request from the caller's side, routed by the Record-Route of {@code ok}. */
    private static String inDialog(String method, SipText ok, long cseq, String sentBy, String transport) {
        String target = SipText.uriOf(ok.header("contact").orElseThrow());
        return RequestText.request(method, target)
                .with("Via: SIP/2.0/" + transport + " " + sentBy + ";branch=" + UdpPeer.branch())
                .with("Route: " + ok.header("record-route").orElseThrow())
                .with("From: " + ok.header("from").orElseThrow())
                .with("To: " + ok.header("to").orElseThrow())
                .with("Call-ID: " + ok.header("call-id").orElseThrow())
                .with("CSeq: " + cseq + " " + method)
                .with("Max-Forwards: 70")
                .text();
    }
}
