package org.p2psip.core.dht;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.math.BigInteger;
import java.util.Map;
import java.util.Optional;

import org.junit.jupiter.api.Test;

class BackendOptionsTest {

    private final BackendOptions options = new BackendOptions("chord",
            Map.of("stabilize-ms", " 250 ", "zero", "0", "word", "soon", "node-id", "1f", "bad-id", "xyz"));

    @Test
    void aPositiveNumberIsReadAndAnAbsentOneFallsBack() {
        assertEquals(250, options.positive("stabilize-ms", 500));
        assertEquals(500, options.positive("rpc-timeout-ms", 500));
    }

    @Test
    void zeroOrAWordIsAOneLineErrorNamingBackendOptionAndValue() {
        DhtException zero = assertThrows(DhtException.class, () -> options.positive("zero", 1));
        assertEquals("chord option zero must be a positive integer, not '0'", zero.getMessage());
        DhtException word = assertThrows(DhtException.class, () -> options.positive("word", 1));
        assertTrue(word.getMessage().contains("'soon'"), word.getMessage());
    }

    @Test
    void aHexIdIsReducedIntoTheIdSpace() {
        assertEquals(Optional.of(BigInteger.valueOf(15)), options.hexId("node-id", BigInteger.valueOf(16)));
        assertEquals(Optional.empty(), options.hexId("absent", BigInteger.TEN));
        DhtException bad = assertThrows(DhtException.class, () -> options.hexId("bad-id", BigInteger.TEN));
        assertEquals("chord option bad-id must be hexadecimal, not 'xyz'", bad.getMessage());
    }
}
