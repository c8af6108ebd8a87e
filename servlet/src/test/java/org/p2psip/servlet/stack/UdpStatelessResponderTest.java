package org.p2psip.servlet.stack;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.DatagramPacket;
import java.net.DatagramSocket;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

class UdpStatelessResponderTest {

    private static final String REGISTER = "REGISTER sip:example.com SIP/2.0\r\n"
            + "Via: SIP/2.0/UDP 127.0.0.1:%d;branch=z9hG4bK-resp-1;rport\r\n"
            + "From: <sip:alice@example.com>;tag=a1\r\n"
            + "To: <sip:alice@example.com>\r\n"
            + "Call-ID: responder-test\r\n"
            + "CSeq: 7 REGISTER\r\n"
            + "Max-Forwards: 70\r\n"
            + "Contact: <sip:alice@127.0.0.1:%d>\r\n"
            + "Content-Length: 0\r\n\r\n";

    private DatagramSocket node;
    private DatagramSocket phone;
    private UdpStatelessResponder responder;
    private Thread thread;

    @BeforeEach
    void sockets() throws Exception {
        node = new DatagramSocket(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
        phone = new DatagramSocket(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
        phone.setSoTimeout(5_000);
        responder = new UdpStatelessResponder(node, EdgeGuards.open());
    }

    @AfterEach
    void close() throws Exception {
        responder.stop();
        if (thread != null) {
            thread.join(5_000);
        }
        node.close();
        phone.close();
    }

    private void start() {
        thread = new Thread(responder, "responder-under-test");
        thread.setDaemon(true);
        thread.start();
    }

    private UdpStatelessResponder.Refusal refusal(String request, int status) {
        return new UdpStatelessResponder.Refusal(request.getBytes(StandardCharsets.US_ASCII),
                (InetSocketAddress) phone.getLocalSocketAddress(), status, 0);
    }

    private String register() {
        int port = phone.getLocalPort();
        return String.format(REGISTER, port, port);
    }

    private String receive() throws Exception {
        byte[] buffer = new byte[65_536];
        DatagramPacket packet = new DatagramPacket(buffer, buffer.length);
        phone.receive(packet);
        assertEquals(node.getLocalPort(), packet.getPort(), "answers come from the port the request reached");
        return new String(buffer, 0, packet.getLength(), StandardCharsets.US_ASCII);
    }

    @Test
    void overloadRefusalIs503WithRetryAfterFromTheNodesPort() throws Exception {
        start();
        assertTrue(responder.offer(refusal(register(), 503)));
        String answer = receive();
        assertTrue(answer.startsWith("SIP/2.0 503 "), answer);
        assertTrue(answer.contains("Retry-After: 1"), answer);
        assertTrue(answer.contains("branch=z9hG4bK-resp-1"), answer);
        assertTrue(answer.contains("CSeq: 7 REGISTER"), answer);
    }

    @Test
    void oversizedRefusalIs513WithoutRetryAfter() throws Exception {
        start();
        assertTrue(responder.offer(refusal(register(), 513)));
        String answer = receive();
        assertTrue(answer.startsWith("SIP/2.0 513 "), answer);
        assertFalse(answer.contains("Retry-After"), answer);
    }

    @Test
    void unparsableRequestIsDroppedAndTheNextStillAnswered() throws Exception {
        start();
        assertTrue(responder.offer(refusal("REGISTER garbage\r\n\r\n", 503)));
        assertTrue(responder.offer(refusal(register(), 503)));
        assertTrue(receive().startsWith("SIP/2.0 503 "));
        phone.setSoTimeout(300);
        assertThrows(SocketTimeoutException.class, this::receive, "one answer for two refusals");
    }

    @Test
    void aFullQueueDropsAndCountsInsteadOfWaiting() {
        UdpStatelessResponder.Refusal one = refusal(register(), 503);
        for (int i = 0; i < UdpStatelessResponder.CAPACITY; i++) {
            assertTrue(responder.offer(one));
        }
        assertFalse(responder.offer(one));
        assertEquals(1, responder.dropped());
    }

    @Test
    void onlyStatelessRefusalsAreAccepted() {
        assertThrows(IllegalArgumentException.class, () -> refusal(register(), 200));
    }
}
