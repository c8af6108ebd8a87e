package org.p2psip.loadtest;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.awt.image.BufferedImage;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import javax.imageio.ImageIO;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.p2psip.core.testing.FreePorts;

/**
 * The status pages as a person opens them: three chord node processes
 * behind {@code p2psip lb}, each serving its page with {@code --metrics};
 * SIPp registers 600 AORs through the balancer; then headless Chromium
 * (Debian's {@code chromium}) loads the balancer's page and a node's and
 * the test reads what their scripts made of {@code status.json}: the
 * member count the page's own DOM reports, the charts it drew, and a
 * screenshot in which the charts' first colour covers more than the
 * legends' swatches could. The screenshots are kept in
 * {@code loadtest/target/} (the ones in {@code docs/} came from such a run).
 */
@Timeout(300)
class StatusPageBrowserTest {

    private static final String DOMAIN = "p2psip.test";
    private static final int AORS = 600;
    /** The pages' first series colour (REGISTER, 2xx, p50; the first node). */
    private static final int FIRST_SERIES_RGB = 0x2563eb;
    /** A legend's swatch of that colour, 10 × 10 CSS pixels, one per chart. */
    private static final int SWATCH_PIXELS = 10 * 10;
    /** What a drawn line of that colour adds at the least: a few seconds of samples, two pixels thick. */
    private static final int LINE_PIXELS = 30;

    @TempDir
    Path work;

    @Test
    void theBalancersAndANodesPagesShowTheirMembersAndChartWhatSippSent() throws Exception {
        HeadlessChromium.binary();
        int lbPort = FreePorts.udpAndTcp();
        int lbMetrics = FreePorts.udpAndTcp();
        try (OverlayNodes nodes = new OverlayNodes("chord", 2, Optional.of(DOMAIN), Optional.of(lbPort))) {
            nodes.startAll(3);
            try (NodeProcess lb = nodes.startBalancer(lbMetrics)) {
                Path csv = OverlayNodes.domainAors(work, "page", AORS, DOMAIN);
                Sipp.Result sent = Sipp.run(work, Duration.ofSeconds(120),
                        "-sf", Path.of("sipp", "register-domain.xml").toAbsolutePath().toString(),
                        "-inf", csv.toString(), "-key", "regcseq", "1", "-m", Integer.toString(AORS),
                        "-r", "50", "-i", "127.0.0.1", "-p", Integer.toString(FreePorts.udpAndTcp()),
                        "127.0.0.1:" + lbPort);
                assertEquals(AORS, sent.successful(), sent::toString);

                HeadlessChromium browser = new HeadlessChromium(work);
                URI lbPage = URI.create("http://127.0.0.1:" + lbMetrics + "/");
                String lbDom = browser.dom(lbPage);
                assertEquals("true", bodyAttribute(lbDom, "data-loaded"), lbDom);
                assertEquals("balancer", bodyAttribute(lbDom, "data-kind"), lbDom);
                assertEquals("3", bodyAttribute(lbDom, "data-members"), lbDom);
                assertEquals("3", tableAttribute(lbDom, "data-count"), lbDom);
                for (OverlayNodes.Member m : nodes.members()) {
                    assertTrue(lbDom.contains("<td>127.0.0.1:" + m.sip() + "</td><td>up</td>"),
                            "node " + m.sip() + " listed as up:\n" + lbDom);
                }
                assertTrue(drawn(lbDom, "chart-0") >= 3, "a line per node in the requests chart:\n" + lbDom);

                OverlayNodes.Member first = nodes.members().get(0);
                URI nodePage = URI.create("http://127.0.0.1:" + first.metrics() + "/");
                String nodeDom = browser.dom(nodePage);
                assertEquals("true", bodyAttribute(nodeDom, "data-loaded"), nodeDom);
                assertEquals("node", bodyAttribute(nodeDom, "data-kind"), nodeDom);
                assertEquals("3", bodyAttribute(nodeDom, "data-members"), "itself and both peers:\n" + nodeDom);
                assertEquals("4", bodyAttribute(nodeDom, "data-charts"), nodeDom);
                for (OverlayNodes.Member m : nodes.members()) {
                    assertTrue(nodeDom.contains("<td>127.0.0.1:" + m.sip() + "</td>"),
                            "member " + m.sip() + " listed:\n" + nodeDom);
                }
                assertTrue(drawn(nodeDom, "chart-0") >= 1, "the requests chart has a line:\n" + nodeDom);
                assertTrue(drawn(nodeDom, "chart-2") >= 1, "the REGISTER time chart has a line:\n" + nodeDom);

                Path target = Path.of("target");
                Files.createDirectories(target);
                Map<String, URI> pages = Map.of("balancer", lbPage, "node", nodePage);
                Map<String, Integer> charts = Map.of("balancer", 3, "node", 4);
                for (Map.Entry<String, URI> shot : pages.entrySet()) {
                    Path png = target.resolve("status-page-" + shot.getKey() + ".png");
                    browser.screenshot(shot.getValue(), png, 1280, 1100);
                    BufferedImage image = ImageIO.read(png.toFile());
                    assertEquals(1280, image.getWidth());
                    assertEquals(1100, image.getHeight());
                    int coloured = pixelsNear(image, FIRST_SERIES_RGB);
                    int swatches = charts.get(shot.getKey()) * SWATCH_PIXELS;
                    System.out.println("status page " + shot.getKey() + ": " + coloured
                            + " pixels of the first series' colour, " + swatches + " of them swatches");
                    assertTrue(coloured > swatches + LINE_PIXELS, shot.getKey() + " page: " + coloured
                            + " pixels of the first series' colour, of which its legends' swatches take " + swatches);
                }
            }
        }
    }

    private static String bodyAttribute(String dom, String name) {
        Matcher body = Pattern.compile("<body([^>]*)>").matcher(dom);
        assertTrue(body.find(), "no body in\n" + dom);
        return attribute(body.group(1), name);
    }

    private static String tableAttribute(String dom, String name) {
        Matcher table = Pattern.compile("<table id=\"members\"([^>]*)>").matcher(dom);
        assertTrue(table.find(), "no members table in\n" + dom);
        return attribute(table.group(1), name);
    }

    /** The lines and dots the page says it drew in the figure with {@code id}. */
    private static int drawn(String dom, String id) {
        Matcher figure = Pattern.compile("<figure[^>]*id=\"" + id + "\"[^>]*>").matcher(dom);
        assertTrue(figure.find(), "no figure " + id);
        return Integer.parseInt(attribute(figure.group(), "data-drawn"));
    }

    private static String attribute(String tag, String name) {
        Matcher m = Pattern.compile("\\b" + Pattern.quote(name) + "=\"([^\"]*)\"").matcher(tag);
        return m.find() ? m.group(1) : "";
    }

    /** Pixels within a small distance of {@code rgb}: anti-aliased edges of a line count too. */
    private static int pixelsNear(BufferedImage image, int rgb) {
        int n = 0;
        for (int y = 0; y < image.getHeight(); y++) {
            for (int x = 0; x < image.getWidth(); x++) {
                int p = image.getRGB(x, y);
                if (Math.abs((p >> 16 & 255) - (rgb >> 16 & 255)) < 40 && Math.abs((p >> 8 & 255) - (rgb >> 8 & 255)) < 40
                        && Math.abs((p & 255) - (rgb & 255)) < 40) {
                    n++;
                }
            }
        }
        return n;
    }
}
