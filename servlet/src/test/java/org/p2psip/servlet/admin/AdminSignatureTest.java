package org.p2psip.servlet.admin;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.Optional;

import org.junit.jupiter.api.Test;

class AdminSignatureTest {

    private static final Instant NOW = Instant.parse("2026-11-23T12:00:00Z");
    private static final byte[] BODY = "alice\tp2psip.test\n".getBytes(StandardCharsets.UTF_8);
    private static final String NODE = "127.0.0.1:5061";
    private final AdminSignature signer = new AdminSignature("s3cret".getBytes(StandardCharsets.UTF_8));

    @Test
    void aSignedRequestVerifiesWithItsNonceAndTheNodeItNames() {
        String header = signer.sign("POST", "/v1/users", NODE, NOW, "a1", BODY);
        assertEquals(Optional.of(new AdminSignature.Verified("a1", NODE)),
                signer.verify(header, "POST", "/v1/users", BODY, NOW.plusSeconds(30)));
    }

    @Test
    void theNodeNamedIsSignedSoAReplayCannotNameAnother() {
        String header = signer.sign("POST", "/v1/users", NODE, NOW, "a1", BODY);
        String retargeted = header.replace("to=" + NODE, "to=127.0.0.1:5062");

        assertTrue(signer.verify(retargeted, "POST", "/v1/users", BODY, NOW).isEmpty());
    }

    @Test
    void aNonceThatIsNotHexIsRefused() {
        String header = signer.sign("POST", "/v1/users", NODE, NOW, "a1#x", BODY);

        assertTrue(signer.verify(header, "POST", "/v1/users", BODY, NOW).isEmpty());
    }

    @Test
    void anotherBodyMethodPathOrSecretFails() {
        String header = signer.sign("POST", "/v1/users", NODE, NOW, "a1", BODY);
        assertTrue(signer.verify(header, "POST", "/v1/users", "mallory".getBytes(StandardCharsets.UTF_8), NOW).isEmpty());
        assertTrue(signer.verify(header, "DELETE", "/v1/users", BODY, NOW).isEmpty());
        assertTrue(signer.verify(header, "POST", "/v1/domains", BODY, NOW).isEmpty());
        AdminSignature stranger = new AdminSignature("other".getBytes(StandardCharsets.UTF_8));
        assertTrue(stranger.verify(header, "POST", "/v1/users", BODY, NOW).isEmpty());
    }

    @Test
    void aRequestOutsideTheWindowOrMalformedFails() {
        String header = signer.sign("GET", "/v1/users", NODE, NOW, "a1", new byte[0]);
        assertTrue(signer.verify(header, "GET", "/v1/users", new byte[0], NOW.plusSeconds(61)).isEmpty());
        assertTrue(signer.verify(header, "GET", "/v1/users", new byte[0], NOW.minusSeconds(61)).isEmpty());
        assertTrue(signer.verify("Basic abc", "GET", "/v1/users", new byte[0], NOW).isEmpty());
        assertTrue(signer.verify(AdminSignature.SCHEME + " t=x, n=1, mac=00", "GET", "/v1/users", new byte[0], NOW).isEmpty());
        assertTrue(signer.verify(null, "GET", "/v1/users", new byte[0], NOW).isEmpty());
    }
}
