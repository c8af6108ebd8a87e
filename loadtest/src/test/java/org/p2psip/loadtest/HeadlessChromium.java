package org.p2psip.loadtest;

import java.io.IOException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Debian's Chromium, headless, loading a page the way a person's browser
 * would and reporting what it made of it: the document after its scripts
 * ran ({@code --dump-dom}), or a screenshot. Each load gets a fresh
 * profile. The flags keep it off the network beyond the page itself: this
 * machine's closed network refuses the connections it would otherwise
 * make at start.
 */
final class HeadlessChromium {

    /** How long the page's scripts may run (on Chromium's virtual clock) before the document is taken. */
    private static final int SCRIPT_BUDGET_MILLIS = 5_000;
    private static final Duration LIMIT = Duration.ofSeconds(90);

    private final Path work;

    /** @param work where profiles and output go */
    HeadlessChromium(Path work) {
        this.work = work;
    }

    /** The chromium binary, or an error saying how to get it. */
    static String binary() {
        return InstalledTool.path("chromium", "chromium");
    }

    /** The page's document as serialised after its scripts ran. */
    String dom(URI page) throws IOException, InterruptedException {
        Path out = work.resolve("dom-" + System.nanoTime() + ".html");
        run(out, List.of("--dump-dom", page.toString()));
        return Files.readString(out, StandardCharsets.UTF_8);
    }

    /** A PNG of the page as a {@code width} × {@code height} window shows it after its scripts ran. */
    void screenshot(URI page, Path png, int width, int height) throws IOException, InterruptedException {
        run(work.resolve("screenshot-" + System.nanoTime() + ".log"),
                List.of("--window-size=" + width + "," + height, "--screenshot=" + png.toAbsolutePath(),
                        "--hide-scrollbars", page.toString()));
        if (!Files.isRegularFile(png)) {
            throw new AssertionError("chromium wrote no screenshot of " + page);
        }
    }

    private void run(Path stdout, List<String> what) throws IOException, InterruptedException {
        Path profile = Files.createTempDirectory(work, "chromium-profile");
        List<String> command = new ArrayList<>(List.of(binary(), "--headless", "--no-sandbox", "--disable-gpu",
                "--disable-quic", "--no-first-run", "--disable-background-networking", "--disable-component-update",
                "--disable-sync", "--user-data-dir=" + profile, "--virtual-time-budget=" + SCRIPT_BUDGET_MILLIS));
        command.addAll(what);
        Path log = work.resolve("chromium-" + System.nanoTime() + ".log");
        Process p = new ProcessBuilder(command).redirectOutput(stdout.toFile()).redirectError(log.toFile()).start();
        if (!p.waitFor(LIMIT.toSeconds(), TimeUnit.SECONDS)) {
            p.destroyForcibly();
            throw new AssertionError("chromium did not finish " + what + " within " + LIMIT);
        }
        if (p.exitValue() != 0) {
            throw new AssertionError("chromium exited " + p.exitValue() + " for " + what + ":\n"
                    + Files.readString(log, StandardCharsets.UTF_8));
        }
    }
}
