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
    private final AdminSignature signer = new AdminSignature("s3cret".getBytes(StandardCharsets.UTF_8));

    @Test
    void aSignedRequestVerifiesWithItsNonce() {
        String header = signer.sign("POST", "/v1/users", NOW, "n1", BODY);
        assertEquals(Optional.of("n1"), signer.verify(header, "POST", "/v1/users", BODY, NOW.plusSeconds(30)));
    }

    @Test
    void anotherBodyMethodPathOrSecretFails() {
        String header = signer.sign("POST", "/v1/users", NOW, "n1", BODY);
        assertTrue(signer.verify(header, "POST", "/v1/users", "mallory".getBytes(StandardCharsets.UTF_8), NOW).isEmpty());
        assertTrue(signer.verify(header, "DELETE", "/v1/users", BODY, NOW).isEmpty());
        assertTrue(signer.verify(header, "POST", "/v1/domains", BODY, NOW).isEmpty());
        AdminSignature stranger = new AdminSignature("other".getBytes(StandardCharsets.UTF_8));
        assertTrue(stranger.verify(header, "POST", "/v1/users", BODY, NOW).isEmpty());
    }

    @Test
    void aRequestOutsideTheWindowOrMalformedFails() {
        String header = signer.sign("GET", "/v1/users", NOW, "n1", new byte[0]);
        assertTrue(signer.verify(header, "GET", "/v1/users", new byte[0], NOW.plusSeconds(61)).isEmpty());
        assertTrue(signer.verify(header, "GET", "/v1/users", new byte[0], NOW.minusSeconds(61)).isEmpty());
        assertTrue(signer.verify("Basic abc", "GET", "/v1/users", new byte[0], NOW).isEmpty());
        assertTrue(signer.verify(AdminSignature.SCHEME + " t=x, n=1, mac=00", "GET", "/v1/users", new byte[0], NOW).isEmpty());
        assertTrue(signer.verify(null, "GET", "/v1/users", new byte[0], NOW).isEmpty());
    }
}
