package org.p2psip.core.auth;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Optional;

import org.junit.jupiter.api.Test;

class DigestAlgorithmTest {

    /** RFC 7616 §3.9.1: the same request answered with MD5 and with SHA-256. */
    private static final DigestCredentials RFC7616 = new DigestCredentials("Mufasa", "http-auth@example.org",
            "7ypf/xlj9XXwfDPEoM4URrv/xwf94BcCAzFZH4GiTo0v", "/dir/index.html", "", "", "f2/wE4q74E6zIJEtWaHKaf5wv/H5QzzpXusqGemxURZJ",
            "auth", "00000001", "");

    @Test
    void md5ResponseMatchesRfc7616Example() {
        String ha1 = DigestAlgorithm.MD5.ha1("Mufasa", "http-auth@example.org", "Circle of Life");
        assertEquals("8ca523f5e9506fed4657c9700eebdbec",
                DigestRules.expectedResponse(DigestAlgorithm.MD5, ha1, "GET", RFC7616));
    }

    @Test
    void sha256ResponseMatchesRfc7616Example() {
        String ha1 = DigestAlgorithm.SHA_256.ha1("Mufasa", "http-auth@example.org", "Circle of Life");
        assertEquals("753927fa0e85d155564e2e272a28d1802ca10daf4496794697cf8db5856cb6c1",
                DigestRules.expectedResponse(DigestAlgorithm.SHA_256, ha1, "GET", RFC7616));
    }

    @Test
    void sha512Truncated256IsTheFipsFunctionNotATruncatedSha512() {
        // FIPS 180-4 test vector for SHA-512/256("abc").
        assertEquals("53048e2681941ef99b2e29b76b4c7dabe4c2d0c634fc6d46e0e2f13107e7af23",
                DigestAlgorithm.SHA_512_256.hash("abc"));
    }

    @Test
    void tokensAreReadCaseInsensitivelyAndSessVariantsAreNotOffered() {
        assertEquals(Optional.of(DigestAlgorithm.SHA_256), DigestAlgorithm.byToken("sha-256"));
        assertEquals(Optional.of(DigestAlgorithm.SHA_512_256), DigestAlgorithm.byToken("\"SHA-512-256\""));
        assertTrue(DigestAlgorithm.byToken("MD5-sess").isEmpty());
        assertTrue(DigestAlgorithm.byToken("AKAv1-MD5").isEmpty());
    }

    @Test
    void listKeepsOrderAndRefusesUnknownOrRepeatedNames() {
        assertEquals(List.of(DigestAlgorithm.SHA_256, DigestAlgorithm.MD5), DigestAlgorithm.parseList("SHA-256, md5"));
        assertThrows(IllegalArgumentException.class, () -> DigestAlgorithm.parseList("SHA-1"));
        assertThrows(IllegalArgumentException.class, () -> DigestAlgorithm.parseList("MD5,MD5"));
    }
}
