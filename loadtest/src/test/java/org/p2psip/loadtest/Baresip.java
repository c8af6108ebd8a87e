package org.p2psip.loadtest;

import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * A real softphone, Debian's baresip 1.x, run headless: its own config
 * folder, one account, audio through the aubridge module (no sound card),
 * and commands over its ctrl_tcp interface. Its output is kept in a file
 * the test reads.
 */
final class Baresip implements AutoCloseable {

    private final Process process;
    private final Path output;
    private final int controlPort;

    private Baresip(Process process, Path output, int controlPort) {
        this.process = process;
        this.output = output;
        this.controlPort = controlPort;
    }

    /** The baresip binary, or an error saying how to get it. */
    static String binary() {
        for (String dir : System.getenv().getOrDefault("PATH", "/usr/bin").split(":")) {
            Path p = Path.of(dir, "baresip");
            if (Files.isExecutable(p)) {
                return p.toString();
            }
        }
        throw new AssertionError("baresip is not installed: apt-get install -y baresip (.ci/run does this)");
    }

    /**
     * Starts a phone registering {@code aor} with {@code password} through the
     * outbound proxy {@code proxy} (host:port).
     *
     * @param autoAnswer whether it answers incoming calls by itself
     */
    static Baresip start(Path work, String name, String aor, String password, String proxy, boolean autoAnswer)
            throws IOException {
        Path dir = work.resolve("baresip-" + name);
        Files.createDirectories(dir);
        // baresip listens for TLS on the SIP port + 1.
        int sip = FreePort.consecutive(2);
        int control = FreePort.udpAndTcp();
        Files.write(dir.resolve("config"), List.of(
                "poll_method epoll",
                "sip_listen 127.0.0.1:" + sip,
                "net_interface 127.0.0.1",
                "call_local_timeout 60",
                "audio_player aubridge," + name + "-play",
                "audio_source aubridge," + name + "-source",
                "audio_alert aubridge," + name + "-alert",
                "module_path /usr/lib/baresip/modules",
                "module g711.so",
                "module aubridge.so",
                "module_tmp account.so",
                "module_app menu.so",
                "module ctrl_tcp.so",
                "ctrl_tcp_listen 127.0.0.1:" + control), StandardCharsets.UTF_8);
        Files.writeString(dir.resolve("accounts"), "<" + aor + ">;auth_pass=" + password + ";outbound=\"sip:" + proxy
                + "\";regint=600" + (autoAnswer ? ";answermode=auto" : "") + "\n", StandardCharsets.UTF_8);
        Path out = dir.resolve("output.txt");
        Process p = new ProcessBuilder(binary(), "-f", dir.toString(), "-t", "120").directory(dir.toFile())
                .redirectErrorStream(true).redirectOutput(out.toFile()).start();
        return new Baresip(p, out, control);
    }

    String output() throws IOException {
        return Files.exists(output) ? Files.readString(output, StandardCharsets.ISO_8859_1) : "";
    }

    /** Waits until the phone has printed {@code text}, or fails with its output at the deadline. */
    void awaitOutput(String text, Duration timeout) throws Exception {
        Instant deadline = Instant.now().plus(timeout);
        while (Instant.now().isBefore(deadline)) {
            if (output().contains(text)) {
                return;
            }
            if (!process.isAlive()) {
                break;
            }
            TimeUnit.MILLISECONDS.sleep(100);
        }
        throw new AssertionError("baresip did not print '" + text + "' within " + timeout + ":\n" + tail());
    }

    /** Sends one command (e.g. {@code dial}, {@code hangup}) as a ctrl_tcp netstring. */
    void command(String command, String params) throws IOException {
        String json = "{\"command\":\"" + command + "\",\"params\":\"" + params + "\",\"token\":\"t\"}";
        byte[] body = json.getBytes(StandardCharsets.UTF_8);
        try (Socket s = new Socket(InetAddress.getLoopbackAddress(), controlPort)) {
            OutputStream o = s.getOutputStream();
            o.write((body.length + ":").getBytes(StandardCharsets.US_ASCII));
            o.write(body);
            o.write(',');
            o.flush();
            s.setSoTimeout(2000);
            s.getInputStream().read();
        }
    }

    /** The last lines of output, without the per-second audio status. */
    String tail() throws IOException {
        String text = output().replaceAll("\\[\\d+:\\d+:\\d+\\] audio=[^\\n]*?\\s{2,}", "");
        return text.length() > 4000 ? text.substring(text.length() - 4000) : text;
    }

    @Override
    public void close() throws Exception {
        process.destroy();
        if (!process.waitFor(5, TimeUnit.SECONDS)) {
            process.destroyForcibly().waitFor(5, TimeUnit.SECONDS);
        }
    }
}
