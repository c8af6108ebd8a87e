package org.p2psip.servlet.admin;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.util.Random;

import org.junit.jupiter.api.Test;

class AdminBodyCipherTest {

    private static final byte[] BODY = "sip:alice@p2psip.test\tMD5\t0123456789abcdef0123456789abcdef\n"
            .getBytes(StandardCharsets.UTF_8);
    private final AdminBodyCipher cipher = new AdminBodyCipher("s3cret".getBytes(StandardCharsets.UTF_8));

    @Test
    void aSealedBodyOpensWithTheSameSecretAndShowsNothingOfItself() {
        byte[] sealed = cipher.seal(BODY, new Random(1));

        assertArrayEquals(BODY, cipher.open(sealed).orElseThrow());
        assertFalse(new String(sealed, StandardCharsets.ISO_8859_1).contains("0123456789abcdef"));
    }

    @Test
    void twoSealsOfOneBodyDiffer() {
        assertFalse(java.util.Arrays.equals(cipher.seal(BODY, new Random(1)), cipher.seal(BODY, new Random(2))));
    }

    @Test
    void anotherSecretAnAlteredByteOrAShortBodyDoNotOpen() {
        byte[] sealed = cipher.seal(BODY, new Random(1));
        byte[] altered = sealed.clone();
        altered[altered.length - 20] ^= 1;

        assertTrue(new AdminBodyCipher("other".getBytes(StandardCharsets.UTF_8)).open(sealed).isEmpty());
        assertTrue(cipher.open(altered).isEmpty());
        assertTrue(cipher.open(new byte[5]).isEmpty());
    }
}
