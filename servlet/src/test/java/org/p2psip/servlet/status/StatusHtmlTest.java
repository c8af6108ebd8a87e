package org.p2psip.servlet.status;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.List;

import org.junit.jupiter.api.Test;
import org.p2psip.servlet.status.StatusView.Fact;

/** The status page's first paint, written by the server before the script runs. */
class StatusHtmlTest {

    private static String template() throws IOException {
        try (InputStream in = StatusPage.class.getResourceAsStream("status.html")) {
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
    }

    private static StatusView balancer(String nodeAddress) {
        return new StatusView("balancer", "p2psip balancer 127.0.0.1:5060",
                List.of(new Fact("policy", "owner"), new Fact("nodes up", "1 of 2")),
                List.of("node", "state"), List.of(List.of("127.0.0.1:5061", "up"), List.of(nodeAddress, "down")),
                List.of());
    }

    @Test
    void theShippedPageGetsItsHeadingFactsAndMembersFromTheView() throws IOException {
        String page = StatusHtml.render(template(), balancer("127.0.0.1:5062"));

        assertTrue(page.contains("<title>p2psip balancer 127.0.0.1:5060</title>"), page);
        assertTrue(page.contains("<dt>policy</dt><dd>owner</dd>"), page);
        assertTrue(page.contains("<h2 id=\"members-heading\">Nodes (2)</h2>"), page);
        assertTrue(page.contains("<table id=\"members\" data-count=\"2\"><thead><tr><th>node</th><th>state</th>"),
                page);
        assertTrue(page.contains("<td>127.0.0.1:5062</td><td class=\"down\">down</td>"), page);
        assertTrue(page.contains("<script>"), "the script still draws the charts");
    }

    @Test
    void valuesAreEscaped() throws IOException {
        String page = StatusHtml.render(template(), balancer("<img src=x onerror=alert(1)>&\"'"));

        assertFalse(page.contains("<img src=x"), page);
        assertTrue(page.contains("<td>&lt;img src=x onerror=alert(1)&gt;&amp;&quot;&#39;</td>"), page);
    }

    @Test
    void aTemplateWithoutTheElementsIsRefused() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> StatusHtml.render("<html><body></body></html>", balancer("127.0.0.1:5062")));
        assertTrue(e.getMessage().contains("<title>"), e.getMessage());
    }
}
