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
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.p2psip.core.testing.FreePorts;

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
    private final int sipPort;

    private Baresip(Process process, Path output, int controlPort, int sipPort) {
        this.process = process;
        this.output = output;
        this.controlPort = controlPort;
        this.sipPort = sipPort;
    }

    /** The baresip binary, or an error saying how to get it. */
    static String binary() {
        return InstalledTool.path("baresip", "baresip-core");
    }

    /**
     * Starts a phone registering {@code aor} with {@code password} through the
     * outbound proxy {@code proxy} (host:port).
     *
     * @param autoAnswer whether it answers incoming calls by itself
     */
    static Baresip start(Path work, String name, String aor, String password, String proxy, boolean autoAnswer)
            throws IOException {
        return launch(work, name, List.of(), "<" + aor + ">;auth_pass=" + password + ";outbound=\"sip:" + proxy
                + "\";regint=600" + (autoAnswer ? ";answermode=auto" : ""), false);
    }

    /**
     * Starts a phone that speaks SIP over TLS (RFC 3261 §26): its account
     * says {@code transport=tls}, so it registers, calls and asks to be
     * reached over TLS. Its own TLS listener (the SIP port + 1) presents
     * {@code certificate}, one PEM file holding the chain and its key, which
     * is what baresip 1.x's {@code sip_certificate} takes; {@code caFile} is
     * its {@code sip_cafile}. The phone traces every SIP message it sends or
     * receives, with the transport and addresses ({@code -s}), for
     * {@link #traced}.
     *
     * <p>baresip 1.0 loads {@code sip_cafile} but does not check the server's
     * certificate against it (a CA file naming someone else still registers),
     * and has no {@code sip_verify_server} yet: trust in the server's chain is
     * for a stricter client such as {@code openssl s_client} to check.
     *
     * @param outboundProxy host:port of a TLS outbound proxy, or null to send
     *                      to the AOR's host and port
     */
    static Baresip startTls(Path work, String name, String aor, String password, String outboundProxy,
                            boolean autoAnswer, Path certificate, Path caFile) throws IOException {
        String account = "<" + aor + ";transport=tls>;auth_pass=" + password
                + (outboundProxy == null ? "" : ";outbound=\"sip:" + outboundProxy + ";transport=tls\"")
                + ";regint=600" + (autoAnswer ? ";answermode=auto" : "");
        return launch(work, name, List.of("sip_certificate " + certificate, "sip_cafile " + caFile), account, true);
    }

    private static Baresip launch(Path work, String name, List<String> extraConfig, String account, boolean trace)
            throws IOException {
        Path dir = work.resolve("baresip-" + name);
        Files.createDirectories(dir);
        Files.writeString(dir.resolve("accounts"), account + "\n", StandardCharsets.UTF_8);
        return startIn(dir, name, extraConfig, trace);
    }

    /**
     * Starts a phone on the folder {@code dir} ({@code baresip -f DIR}) with
     * the accounts file already there, as a reader made it. Its config gets
     * what a headless test needs (audio bridged, ctrl_tcp, addresses on
     * 127.0.0.1) ahead of any lines the folder's config holds already, then
     * {@code extraConfig}.
     */
    static Baresip startIn(Path dir, String name, List<String> extraConfig, boolean trace) throws IOException {
        // baresip listens for TLS on the SIP port + 1.
        int sip = FreePorts.consecutive(2);
        int control = FreePorts.udpAndTcp();
        List<String> config = new ArrayList<>(List.of(
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
                "ctrl_tcp_listen 127.0.0.1:" + control));
        Path existing = dir.resolve("config");
        if (Files.exists(existing)) {
            // What the reader added (sip_cafile, ...) stays; what a start of this harness wrote is written afresh.
            Set<String> ours = new HashSet<>();
            config.forEach(l -> ours.add(l.split("\\s+")[0]));
            Files.readAllLines(existing, StandardCharsets.UTF_8).stream()
                    .filter(l -> !ours.contains(l.strip().split("\\s+")[0])).forEach(config::add);
        }
        config.addAll(extraConfig);
        Files.write(existing, config, StandardCharsets.UTF_8);
        Path out = dir.resolve("output.txt");
        List<String> command = new ArrayList<>(List.of(binary(), "-f", dir.toString(), "-t", "120"));
        if (trace) {
            command.add("-s");
        }
        Process p = new ProcessBuilder(command).directory(dir.toFile())
                .redirectErrorStream(true).redirectOutput(out.toFile()).start();
        return new Baresip(p, out, control, sip);
    }

    /** The port of the phone's TLS listener (its SIP port + 1). */
    int tlsPort() {
        return sipPort + 1;
    }

    /** One SIP message in the phone's trace ({@code -s}): how it travelled, and its text up to the blank line. */
    record Traced(String transport, String from, String to, String message) {

        String startLine() {
            int end = message.indexOf('\n');
            return (end < 0 ? message : message.substring(0, end)).strip();
        }

        /** The first value of header {@code name} (full name only), or "" when absent. */
        String header(String name) {
            Matcher m = Pattern.compile("(?im)^" + Pattern.quote(name) + "\\s*:\\s*([^\\r\\n]*)").matcher(message);
            return m.find() ? m.group(1).strip() : "";
        }
    }

    private static final Pattern TRACE_HOP = Pattern.compile(
            "(?m)^(UDP|TCP|TLS) (\\S+) -> (\\S+)\\r?\\n((?:[^\\r\\n]+\\r?\\n)*)");

    /** The traced messages whose start line begins with {@code start} ("INVITE ", "SIP/2.0 200", ...), in order. */
    List<Traced> traced(String start) throws IOException {
        List<Traced> found = new ArrayList<>();
        Matcher m = TRACE_HOP.matcher(output());
        while (m.find()) {
            if (m.group(4).startsWith(start)) {
                found.add(new Traced(m.group(1), m.group(2), m.group(3), m.group(4)));
            }
        }
        return found;
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
