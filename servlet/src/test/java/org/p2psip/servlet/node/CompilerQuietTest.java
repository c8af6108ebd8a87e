package org.p2psip.servlet.node;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;

import org.junit.jupiter.api.Test;

class CompilerQuietTest {

    @Test
    void aWindowWithAFewMillisecondsOfCompilingIsQuietAndOneWithAnOptimisedParserIsNot() {
        assertTrue(CompilerQuiet.quiet(0));
        assertTrue(CompilerQuiet.quiet(CompilerQuiet.BUSY_PER_WINDOW.toMillis()));
        assertFalse(CompilerQuiet.quiet(CompilerQuiet.BUSY_PER_WINDOW.toMillis() + 1));
        assertFalse(CompilerQuiet.quiet(120), "C2 compiling a large parser method takes about this long");
    }

    @Test
    void theWaitEndsByItsLimit() throws Exception {
        Duration waited = CompilerQuiet.await(Duration.ofSeconds(3));

        assertTrue(waited.compareTo(Duration.ofSeconds(3).plus(CompilerQuiet.WINDOW).plusSeconds(1)) < 0, waited::toString);
    }
}
