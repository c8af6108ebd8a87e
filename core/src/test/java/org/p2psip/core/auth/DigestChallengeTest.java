package org.p2psip.core.auth;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Instant;
import java.util.List;
import java.util.Optional;

import org.junit.jupiter.api.Test;
import org.p2psip.core.location.AddressOfRecord;

class DigestChallengeTest {

    @Test
    void aChallengeIsReadWhateverTheQuotingAndCase() {
        DigestChallenge c = DigestChallenge.parse("Digest realm=\"p2psip.test\",nonce=\"n-1\", algorithm=\"sha-256\", "
                + "qop=\"auth,auth-int\", stale=TRUE, opaque=\"o\"").orElseThrow();
        assertEquals(new DigestChallenge("p2psip.test", "n-1", DigestAlgorithm.SHA_256, "o", true), c);
        assertEquals(DigestAlgorithm.MD5, DigestChallenge.parse("Digest realm=\"r\", nonce=\"n\"").orElseThrow().algorithm());
    }

    @Test
    void otherSchemesUnknownAlgorithmsAndMissingNoncesAreNotChallengesToAnswer() {
        assertTrue(DigestChallenge.parse("Basic realm=\"r\"").isEmpty());
        assertTrue(DigestChallenge.parse("Digest realm=\"r\", nonce=\"n\", algorithm=AKAv1-MD5").isEmpty());
        assertTrue(DigestChallenge.parse("Digest realm=\"r\"").isEmpty());
    }

    @Test
    void theAnswerIsWhatTheServerRulesVerify() {
        AddressOfRecord alice = AddressOfRecord.parse("sip:alice@p2psip.test");
        DigestChallenge c = new DigestChallenge("p2psip.test", "nonce-1", DigestAlgorithm.SHA_512_256, "", false);
        String header = c.answer("alice", "wonderland", "REGISTER", "sip:p2psip.test", 7, "cn");
        var p = DigestChallenge.parameters(header);
        DigestCredentials sent = new DigestCredentials(p.get("username"), p.get("realm"), p.get("nonce"), p.get("uri"),
                p.get("response"), p.get("algorithm"), p.get("cnonce"), p.get("qop"), p.get("nc"), p.get("opaque"));
        DigestVerdict v = DigestRules.verify(sent, "REGISTER", Optional.of(UserCredentials.fromPassword(alice, "wonderland")),
                new NonceStatus.Fresh(Instant.EPOCH), List.of(DigestAlgorithm.SHA_512_256));
        assertInstanceOf(DigestVerdict.Verified.class, v);
        assertEquals(7, ((DigestVerdict.Verified) v).nc());
    }

    @Test
    void aChallengeWrittenByTheServerReadsBackAsItsParts() {
        String written = DigestChallenge.value("example.com", "n0nce", DigestAlgorithm.SHA_256, true);

        DigestChallenge read = DigestChallenge.parse(written).orElseThrow();
        assertEquals(new DigestChallenge("example.com", "n0nce", DigestAlgorithm.SHA_256, "", true), read);
        assertEquals("auth", DigestChallenge.parameters(written).get("qop"));
        assertEquals(Optional.of(false), DigestChallenge.parse(DigestChallenge.value("example.com", "n", DigestAlgorithm.MD5,
                false)).map(DigestChallenge::stale));
    }
}
