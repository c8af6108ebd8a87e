package org.p2psip.servlet.node;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.regex.Pattern;
import java.util.UUID;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.p2psip.core.net.HostPort;
import org.p2psip.core.testing.RequestText;
import org.p2psip.core.testing.UdpPeer;

/** A node with {@code --access-log} writes one line per answered REGISTER, refused ones included. */
class AccessLogIntegrationTest {

    @TempDir
    Path dir;

    @Test
    void anAcceptedAndARefusedRegisterAreOneLineEachWithTheirStatus() throws Exception {
        Path file = dir.resolve("access.log");
        String accepted = "acc-" + UUID.randomUUID();
        String refused = "ref-" + UUID.randomUUID();
        String phone;
        try (FrontNode node = FrontNode.start(NodeSettings.local(new HostPort("127.0.0.1", 0))
                .withTrust(TrustSettings.open("example.com")).withAccessLog(file));
             UdpPeer ua = new UdpPeer()) {
            phone = ua.hostPort();
            String aor = "sip:alice@example.com";
            ua.send(RequestText.standard("REGISTER", "sip:example.com", ua.hostPort(), aor, aor, accepted, 1)
                    .with("Contact: <sip:alice@192.0.2.1>").text(), node.sipAddress());
            ua.expectResponse("REGISTER", 200);
            // Expires below the registrar's minimum: 423 Interval Too Brief (RFC 3261 §10.3 step 7).
            ua.send(RequestText.standard("REGISTER", "sip:example.com", ua.hostPort(), aor, aor, refused, 1)
                    .with("Contact: <sip:alice@192.0.2.2>").with("Expires: 1").text(), node.sipAddress());
            ua.expectResponse("REGISTER", 423);
        }
        List<String> lines = Files.readAllLines(file, StandardCharsets.UTF_8);
        assertEquals(2, lines.size(), String.join("\n", lines));
        // The client's address comes after the node's: here the phone's own socket.
        assertTrue(lines.get(0).matches("\\S+Z 127\\.0\\.0\\.1:\\d+ " + Pattern.quote(phone)
                + " REGISTER sip:alice@example\\.com 200 \\d+\\.\\dms " + accepted), lines.get(0));
        assertTrue(lines.get(1).contains(" REGISTER sip:alice@example.com 423 "), lines.get(1));
        assertTrue(lines.get(1).endsWith(" " + refused), lines.get(1));
    }
}
