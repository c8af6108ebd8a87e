package org.p2psip.core.auth;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Instant;
import java.util.List;
import java.util.Optional;

import org.junit.jupiter.api.Test;
import org.p2psip.core.location.AddressOfRecord;
import org.p2psip.core.location.ServedDomains;
import org.p2psip.core.net.HostPort;

class DigestRulesTest {

    private static final String REALM = "p2psip.test";
    private static final AddressOfRecord ALICE = AddressOfRecord.parse("sip:alice@p2psip.test");
    private static final UserCredentials ALICE_CREDS = UserCredentials.fromPassword(ALICE, "wonderland");
    private static final List<DigestAlgorithm> OFFERED = List.of(DigestAlgorithm.SHA_256, DigestAlgorithm.MD5);
    private static final NonceStatus FRESH = new NonceStatus.Fresh(Instant.EPOCH);
    private static final String NONCE = "n".repeat(43);

    /** What a phone sends: the response computed from the password, as RFC 7616 §3.4.1 says. */
    private static DigestCredentials answer(DigestAlgorithm a, String password, String qop, String nc) {
        DigestCredentials unsigned = new DigestCredentials("alice", REALM, NONCE, "sip:p2psip.test", "",
                a == DigestAlgorithm.MD5 ? "" : a.token(), qop.isEmpty() ? "" : "0a4f113b", qop, nc, "");
        String response = DigestRules.expectedResponse(a, a.ha1("alice", REALM, password), "REGISTER", unsigned);
        return new DigestCredentials(unsigned.username(), unsigned.realm(), unsigned.nonce(), unsigned.uri(), response,
                unsigned.algorithm(), unsigned.cnonce(), unsigned.qop(), unsigned.nc(), unsigned.opaque());
    }

    @Test
    void theRightPasswordIsVerifiedWithItsNonceCount() {
        DigestVerdict v = DigestRules.verify(answer(DigestAlgorithm.SHA_256, "wonderland", "auth", "0000002a"),
                "REGISTER", Optional.of(ALICE_CREDS), FRESH, OFFERED);
        assertEquals(new DigestVerdict.Verified(ALICE_CREDS, 42), v);
    }

    @Test
    void aResponseWithoutAlgorithmIsMd5() {
        DigestVerdict v = DigestRules.verify(answer(DigestAlgorithm.MD5, "wonderland", "auth", "00000001"),
                "REGISTER", Optional.of(ALICE_CREDS), FRESH, OFFERED);
        assertInstanceOf(DigestVerdict.Verified.class, v);
    }

    @Test
    void aWrongPasswordAndAnUnknownUserBothFail() {
        DigestCredentials wrong = answer(DigestAlgorithm.SHA_256, "looking-glass", "auth", "00000001");
        assertInstanceOf(DigestVerdict.Failed.class,
                DigestRules.verify(wrong, "REGISTER", Optional.of(ALICE_CREDS), FRESH, OFFERED));
        DigestCredentials right = answer(DigestAlgorithm.SHA_256, "wonderland", "auth", "00000001");
        assertInstanceOf(DigestVerdict.Failed.class,
                DigestRules.verify(right, "REGISTER", Optional.empty(), FRESH, OFFERED));
    }

    @Test
    void theResponseCoversTheMethod() {
        DigestCredentials forRegister = answer(DigestAlgorithm.SHA_256, "wonderland", "auth", "00000001");
        assertInstanceOf(DigestVerdict.Failed.class,
                DigestRules.verify(forRegister, "INVITE", Optional.of(ALICE_CREDS), FRESH, OFFERED));
    }

    @Test
    void aRightResponseToAnExpiredNonceIsStaleAndAWrongOneIsNot() {
        NonceStatus expired = new NonceStatus.Expired(Instant.EPOCH);
        assertInstanceOf(DigestVerdict.Stale.class, DigestRules.verify(
                answer(DigestAlgorithm.SHA_256, "wonderland", "auth", "00000001"), "REGISTER",
                Optional.of(ALICE_CREDS), expired, OFFERED));
        assertInstanceOf(DigestVerdict.Failed.class, DigestRules.verify(
                answer(DigestAlgorithm.SHA_256, "guess", "auth", "00000001"), "REGISTER",
                Optional.of(ALICE_CREDS), expired, OFFERED));
    }

    @Test
    void aForeignNonceFailsEvenWithTheRightPassword() {
        assertInstanceOf(DigestVerdict.Failed.class, DigestRules.verify(
                answer(DigestAlgorithm.SHA_256, "wonderland", "auth", "00000001"), "REGISTER",
                Optional.of(ALICE_CREDS), NonceStatus.INVALID, OFFERED));
    }

    @Test
    void anAlgorithmNotOfferedFails() {
        assertInstanceOf(DigestVerdict.Failed.class, DigestRules.verify(
                answer(DigestAlgorithm.SHA_512_256, "wonderland", "auth", "00000001"), "REGISTER",
                Optional.of(ALICE_CREDS), FRESH, OFFERED));
        assertInstanceOf(DigestVerdict.Failed.class, DigestRules.verify(
                answer(DigestAlgorithm.MD5, "wonderland", "auth", "00000001"), "REGISTER",
                Optional.of(ALICE_CREDS), FRESH, List.of(DigestAlgorithm.SHA_256)));
    }

    @Test
    void aResponseWithoutQopSpendsItsNonce() {
        DigestVerdict v = DigestRules.verify(answer(DigestAlgorithm.MD5, "wonderland", "", ""), "REGISTER",
                Optional.of(ALICE_CREDS), FRESH, OFFERED);
        assertEquals(new DigestVerdict.Verified(ALICE_CREDS, 1), v);
    }

    @Test
    void qopAuthNeedsAValidNonceCountAndAuthIntIsNotOffered() {
        assertInstanceOf(DigestVerdict.Failed.class, DigestRules.verify(
                answer(DigestAlgorithm.MD5, "wonderland", "auth", "1"), "REGISTER", Optional.of(ALICE_CREDS), FRESH,
                OFFERED));
        assertInstanceOf(DigestVerdict.Failed.class, DigestRules.verify(
                answer(DigestAlgorithm.MD5, "wonderland", "auth-int", "00000001"), "REGISTER",
                Optional.of(ALICE_CREDS), FRESH, OFFERED));
    }

    @Test
    void theClaimedUserIsTheUsernameInTheRealmOrAWholeAddressAtAnAlias() {
        ServedDomains domains = ServedDomains.of(REALM, new HostPort("127.0.0.1", 5060));
        DigestCredentials plain = new DigestCredentials("alice", REALM, NONCE, "sip:x", "r", "", "", "", "", "");
        assertEquals(Optional.of(ALICE), DigestRules.claimedUser(plain, REALM, domains));
        DigestCredentials whole = new DigestCredentials("alice@127.0.0.1:5060", REALM, NONCE, "sip:x", "r", "", "", "", "", "");
        assertEquals(Optional.of(ALICE), DigestRules.claimedUser(whole, REALM, domains));
        DigestCredentials otherRealm = new DigestCredentials("alice", "example.com", NONCE, "sip:x", "r", "", "", "", "", "");
        assertTrue(DigestRules.claimedUser(otherRealm, REALM, domains).isEmpty());
        DigestCredentials foreign = new DigestCredentials("alice@example.com", REALM, NONCE, "sip:x", "r", "", "", "", "", "");
        assertTrue(DigestRules.claimedUser(foreign, REALM, domains).isEmpty());
    }
}
