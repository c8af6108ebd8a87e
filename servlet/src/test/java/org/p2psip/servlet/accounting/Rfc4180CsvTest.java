package org.p2psip.servlet.accounting;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.Arrays;
import java.util.List;

import org.junit.jupiter.api.Test;

/** CSV lines as RFC 4180 §2 writes them, and cells no spreadsheet takes for a formula. */
class Rfc4180CsvTest {

    @Test
    void plainFieldsAreSeparatedByCommasAndTheLineEndsInCrlf() {
        assertEquals("a,b,42\r\n", Rfc4180Csv.line(List.of("a", "b", "42")));
    }

    @Test
    void aMissingValueIsAnEmptyField() {
        assertEquals("a,,c\r\n", Rfc4180Csv.line(Arrays.asList("a", null, "c")));
        assertEquals(",\r\n", Rfc4180Csv.line(Arrays.asList(null, "")));
    }

    @Test
    void fieldsWithCommasQuotesOrLineBreaksAreQuotedAndTheirQuotesDoubled() {
        assertEquals("\"\"\"Bob\"\" <sip:bob@x>, office\",\"a\r\nb\",\"c\nd\",\"e\rf\"\r\n",
                Rfc4180Csv.line(List.of("\"Bob\" <sip:bob@x>, office", "a\r\nb", "c\nd", "e\rf")));
    }

    @Test
    void aQuoteAloneIsQuoted() {
        assertEquals("\"\"\"\"\r\n", Rfc4180Csv.line(List.of("\"")));
    }

    @Test
    void textThatAFormulaWouldStartWithGetsALeadingApostrophe() {
        assertEquals("'=HYPERLINK(\"x\")", Rfc4180Csv.inert("=HYPERLINK(\"x\")"));
        assertEquals("'+1", Rfc4180Csv.inert("+1"));
        assertEquals("'-1", Rfc4180Csv.inert("-1"));
        assertEquals("'@SUM(A1)", Rfc4180Csv.inert("@SUM(A1)"));
        assertEquals("'\tx", Rfc4180Csv.inert("\tx"));
        assertEquals("sip:bob@x", Rfc4180Csv.inert("sip:bob@x"));
        assertEquals("", Rfc4180Csv.inert(""));
        assertEquals(null, Rfc4180Csv.inert(null));
    }
}
