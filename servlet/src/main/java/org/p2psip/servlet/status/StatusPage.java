package org.p2psip.servlet.status;

/**
 * What a process shows on its status page ({@code /} beside
 * {@code /metrics}): who it is, the members it knows, and charts of the
 * last minutes, as the JSON the page's script reads from
 * {@code /status.json}. The metrics server calls {@link #sample} once a
 * second and {@link #json} per request, both from its one thread.
 */
public interface StatusPage {

    /** Takes one sample for every chart, at {@code epochMillis} on the wall clock and {@code nanos} on a monotonic one. */
    void sample(long epochMillis, long nanos);

    /** Everything the page shows now. */
    StatusView view();

    /** {@link #view()} as the JSON the page's script reads. */
    default String json() {
        return view().json();
    }

    /** The page's HTML {@code template} with what it shows now written in ({@link StatusHtml}). */
    default String html(String template) {
        return StatusHtml.render(template, view());
    }
}
