package org.p2psip.core.metrics;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;

class ExpositionTextTest {

    @Test
    void labelValuesAreEscaped() {
        assertEquals("a\\\\b\\\"c\\nd", ExpositionText.escape("a\\b\"c\nd"));
    }

    @Test
    void aFamilyOpensWithItsHelpAndType() {
        StringBuilder b = new StringBuilder();
        ExpositionText.family(b, "x_total", "counter", "Things.");
        assertEquals("# HELP x_total Things.\n# TYPE x_total counter\n", b.toString());
    }
}
