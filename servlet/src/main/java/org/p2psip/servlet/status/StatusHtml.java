package org.p2psip.servlet.status;

import java.util.List;

/**
 * The status page as the server sends it: the page's template with the
 * heading, the facts and the members table already filled in from a
 * {@link StatusView}, so that the page says something before its script has
 * run, and to a client that runs none ({@code curl}, a text browser). The
 * script redraws the same elements from {@code status.json} and adds the
 * charts. Every value is HTML-escaped: member addresses and titles come
 * from configuration and the network.
 */
final class StatusHtml {

    private static final String TITLE = "<title>p2psip status</title>";
    private static final String HEADING = "<h1 id=\"title\">p2psip</h1>";
    private static final String FACTS = "<dl id=\"facts\"></dl>";
    private static final String MEMBERS_HEADING = "<h2 id=\"members-heading\">Members</h2>";
    private static final String MEMBERS = "<table id=\"members\" data-count=\"0\"><thead></thead><tbody></tbody></table>";

    private StatusHtml() {
    }

    /** {@code template} with {@code view} written into it; a template without the expected elements is refused. */
    static String render(String template, StatusView view) {
        StringBuilder facts = new StringBuilder("<dl id=\"facts\">");
        for (StatusView.Fact f : view.facts()) {
            facts.append("<div><dt>").append(escape(f.name())).append("</dt><dd>").append(escape(f.value()))
                    .append("</dd></div>");
        }
        facts.append("</dl>");
        StringBuilder members = new StringBuilder("<table id=\"members\" data-count=\"")
                .append(view.members().size()).append("\"><thead><tr>");
        for (String column : view.columns()) {
            members.append("<th>").append(escape(column)).append("</th>");
        }
        members.append("</tr></thead><tbody>");
        for (List<String> row : view.members()) {
            members.append("<tr>");
            for (String cell : row) {
                members.append("down".equals(cell) ? "<td class=\"down\">" : "<td>").append(escape(cell))
                        .append("</td>");
            }
            members.append("</tr>");
        }
        members.append("</tbody></table>");
        int n = view.members().size();
        String heading = "balancer".equals(view.kind()) ? "Nodes (" + n + ")"
                : "Members this node knows (" + n + ", itself included)";
        String page = replace(template, TITLE, "<title>" + escape(view.title()) + "</title>");
        page = replace(page, HEADING, "<h1 id=\"title\">" + escape(view.title()) + "</h1>");
        page = replace(page, FACTS, facts.toString());
        page = replace(page, MEMBERS_HEADING, "<h2 id=\"members-heading\">" + escape(heading) + "</h2>");
        return replace(page, MEMBERS, members.toString());
    }

    private static String replace(String page, String element, String filled) {
        int at = page.indexOf(element);
        if (at < 0) {
            throw new IllegalArgumentException("the status page's template has no " + element);
        }
        return page.substring(0, at) + filled + page.substring(at + element.length());
    }

    static String escape(String text) {
        StringBuilder b = new StringBuilder(text.length() + 16);
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            switch (c) {
                case '&' -> b.append("&amp;");
                case '<' -> b.append("&lt;");
                case '>' -> b.append("&gt;");
                case '"' -> b.append("&quot;");
                case '\'' -> b.append("&#39;");
                default -> b.append(c);
            }
        }
        return b.toString();
    }
}
