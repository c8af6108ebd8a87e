package org.p2psip.servlet.stack;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import java.net.InetAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.p2psip.sip.wire.ConnectionLimits;
import org.p2psip.core.guard.BadInputLog;
import org.p2psip.core.guard.CredentialFreeBudget;
import org.p2psip.core.guard.OverloadGate;
import org.p2psip.core.guard.SourceGuard;

/** What a connection's guard lets through to the RI's parser. */
class StreamGuardTest {

    private static final ConnectionLimits LIMITS = new ConnectionLimits(Duration.ofMinutes(1), Duration.ofSeconds(10),
            100, 100);

    private final ConnectionGuard guard = new ConnectionGuard(LIMITS, SourceGuard.off(), "test");

    @AfterEach
    void stop() {
        guard.close();
    }

    /** A connection that keeps what reached the parser. */
    private static final class Peer implements StreamGuard.Connection {
        final List<String> parsed = new ArrayList<>();
        boolean closed;

        @Override
        public void parse(byte[] bytes) {
            parsed.add(new String(bytes, StandardCharsets.US_ASCII));
        }

        @Override
        public void refuse(byte[] answer) {
            closed = true;
        }

        @Override
        public void close() {
            closed = true;
        }
    }

    private static byte[] register(String user, String extra) {
        return ("REGISTER sip:p2psip.test SIP/2.0\r\nVia: SIP/2.0/TCP 127.0.0.9;branch=z9hG4bK-" + user
                + "\r\nMax-Forwards: 70\r\nTo: <sip:" + user + "@p2psip.test>\r\nFrom: <sip:" + user
                + "@p2psip.test>;tag=1\r\nCall-ID: " + user + "\r\nCSeq: 1 REGISTER\r\n" + extra
                + "Content-Length: 0\r\n\r\n").getBytes(StandardCharsets.US_ASCII);
    }

    @Test
    void requestsWithoutCredentialsOverTheNodesBudgetAreDroppedAndTheConnectionStays() throws Exception {
        EdgeGuards edge = new EdgeGuards(SourceGuard.off(), BadInputLog.standard(),
                new OverloadGate(Duration.ofSeconds(5), Integer.MAX_VALUE), Duration.ofSeconds(1), 65_535, LIMITS,
                Optional.of(new CredentialFreeBudget(1, 2, System.nanoTime())));
        Peer peer = new Peer();
        StreamGuard stream = new StreamGuard(guard, edge, InetAddress.getByName("127.0.0.9"), 5060);
        stream.open(peer);

        for (int i = 0; i < 4; i++) {
            stream.feed(register("u" + i, ""), peer);
        }
        stream.feed(register("alice", "Authorization: Digest username=\"alice\", realm=\"p2psip.test\"\r\n"), peer);

        assertEquals(3, peer.parsed.size(), "the budget's burst of 2, then the REGISTER with credentials");
        assertEquals(2, edge.credentialFreeDropped());
        assertFalse(peer.closed, "the connection is not closed for it");
    }
}
