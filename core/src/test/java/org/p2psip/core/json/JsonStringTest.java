package org.p2psip.core.json;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;

class JsonStringTest {

    @Test
    void quotesBackslashesAndControlCharactersAreEscaped() {
        assertEquals("\"a\\\"b\\\\c\\n\\r\\t\\u0001é\"", JsonString.quote("a\"b\\c\n\r\t\u0001é"));
    }
}
