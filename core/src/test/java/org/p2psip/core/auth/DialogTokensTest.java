package org.p2psip.core.auth;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;

import org.junit.jupiter.api.Test;

class DialogTokensTest {

    private final DialogTokens node1 = new DialogTokens("s3cret".getBytes(StandardCharsets.UTF_8));
    private final DialogTokens node2 = new DialogTokens("s3cret".getBytes(StandardCharsets.UTF_8));

    @Test
    void aTokenWrittenByOneNodeIsValidOnAnotherForTheSameCallOnly() {
        String t = node1.token("call-1@host");
        assertEquals(16, t.length());
        assertTrue(node2.valid("call-1@host", t));
        assertFalse(node2.valid("call-2@host", t));
    }

    @Test
    void anotherSecretOrGarbageIsNotValid() {
        DialogTokens stranger = new DialogTokens("other".getBytes(StandardCharsets.UTF_8));
        assertFalse(node1.valid("c", stranger.token("c")));
        assertFalse(node1.valid("c", "%%%"));
        assertFalse(node1.valid("c", null));
    }
}
