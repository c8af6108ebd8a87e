package org.p2psip.core.auth;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotEquals;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;

import org.junit.jupiter.api.Test;

class StatelessNoncesTest {

    private static final byte[] SECRET = "cluster-secret".getBytes(StandardCharsets.UTF_8);
    private static final Instant T0 = Instant.parse("2026-11-23T12:00:00Z");

    private final StatelessNonces node1 = new StatelessNonces(SECRET, Duration.ofMinutes(5));
    private final StatelessNonces node3 = new StatelessNonces(SECRET, Duration.ofMinutes(5));

    @Test
    void aNonceIssuedByOneNodeIsFreshOnAnother() {
        String nonce = node1.issue("p2psip.test", T0, 42);
        assertEquals(new NonceStatus.Fresh(T0), node3.check(nonce, "p2psip.test", T0.plusSeconds(299)));
    }

    @Test
    void afterItsLifetimeANonceIsExpiredNotInvalid() {
        String nonce = node1.issue("p2psip.test", T0, 42);
        assertEquals(new NonceStatus.Expired(T0), node3.check(nonce, "p2psip.test", T0.plusSeconds(301)));
    }

    @Test
    void anotherSecretOrRealmMakesItInvalid() {
        String nonce = node1.issue("p2psip.test", T0, 42);
        StatelessNonces stranger = new StatelessNonces("other".getBytes(StandardCharsets.UTF_8), Duration.ofMinutes(5));
        assertInstanceOf(NonceStatus.Invalid.class, stranger.check(nonce, "p2psip.test", T0));
        assertInstanceOf(NonceStatus.Invalid.class, node3.check(nonce, "example.com", T0));
    }

    @Test
    void aChangedTimeOrGarbageIsInvalid() {
        String nonce = node1.issue("p2psip.test", T0, 42);
        char[] c = nonce.toCharArray();
        c[3] = c[3] == 'A' ? 'B' : 'A';
        assertInstanceOf(NonceStatus.Invalid.class, node3.check(new String(c), "p2psip.test", T0));
        assertInstanceOf(NonceStatus.Invalid.class, node3.check("not-a-nonce", "p2psip.test", T0));
        assertInstanceOf(NonceStatus.Invalid.class, node3.check("", "p2psip.test", T0));
    }

    @Test
    void aNonceFromFarInTheFutureIsInvalid() {
        String nonce = node1.issue("p2psip.test", T0.plusSeconds(120), 42);
        assertInstanceOf(NonceStatus.Invalid.class, node3.check(nonce, "p2psip.test", T0));
        String slightlyAhead = node1.issue("p2psip.test", T0.plusSeconds(5), 42);
        assertInstanceOf(NonceStatus.Fresh.class, node3.check(slightlyAhead, "p2psip.test", T0));
    }

    @Test
    void noncesDifferByTheirRandomPart() {
        assertNotEquals(node1.issue("p2psip.test", T0, 1), node1.issue("p2psip.test", T0, 2));
    }
}
