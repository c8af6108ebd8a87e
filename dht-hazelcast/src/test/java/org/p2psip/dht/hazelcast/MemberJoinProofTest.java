package org.p2psip.dht.hazelcast;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Map;
import java.util.Optional;

import org.junit.jupiter.api.Test;
import org.p2psip.core.overlay.OverlaySecret;

class MemberJoinProofTest {

    private final MemberJoinProof proof = new MemberJoinProof(OverlaySecret.of("S"), "p2psip");

    private static Map<String, String> showing(String value) {
        return Map.of(MemberJoinProof.ATTRIBUTE, value, HazelcastDht.SIP_ATTRIBUTE, "127.0.0.1:5060");
    }

    @Test
    void proofMadeForItsOwnAddressAdmitsTheJoiner() {
        assertEquals(Optional.empty(), proof.refusal("10.0.0.2:7001", showing(proof.proofFor("10.0.0.2:7001"))));
    }

    @Test
    void proofCopiedToAnotherAddressIsRefused() {
        String sniffed = proof.proofFor("10.0.0.2:7001");
        assertTrue(proof.refusal("10.0.0.9:7001", showing(sniffed)).orElseThrow().contains("does not hold"));
        assertTrue(proof.refusal("10.0.0.2:7002", showing(sniffed)).isPresent());
    }

    @Test
    void proofUnderAnotherSecretOrClusterNameIsRefused() {
        String other = new MemberJoinProof(OverlaySecret.of("T"), "p2psip").proofFor("10.0.0.2:7001");
        assertTrue(proof.refusal("10.0.0.2:7001", showing(other)).isPresent());
        String otherCluster = new MemberJoinProof(OverlaySecret.of("S"), "lab").proofFor("10.0.0.2:7001");
        assertTrue(proof.refusal("10.0.0.2:7001", showing(otherCluster)).isPresent());
    }

    @Test
    void joinerWithoutProofOrWithGarbageIsRefusedWithAReason() {
        assertTrue(proof.refusal("10.0.0.2:7001", Map.of()).orElseThrow().contains("no join proof"));
        assertTrue(proof.refusal("10.0.0.2:7001", null).isPresent());
        assertTrue(proof.refusal("10.0.0.2:7001", showing("%%not base64%%")).orElseThrow().contains("base64"));
        assertTrue(proof.refusal("10.0.0.2:7001", showing("")).isPresent());
    }

    @Test
    void proofIsAMacNotTheAddressItNames() {
        String shown = proof.proofFor("10.0.0.2:7001");
        assertEquals(43, shown.length(), "32 bytes of MAC in unpadded base64url");
        assertFalse(shown.contains("10.0.0.2"));
    }
}
