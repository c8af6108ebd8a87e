package org.p2psip.dht.hazelcast;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * A packet capture of the TCP traffic to and from one port on the loopback
 * interface, taken by {@code tcpdump} (Debian's {@code tcpdump}; root) as a
 * watcher of the overlay network would take it.
 */
final class LoopbackCapture implements AutoCloseable {

    private final Process tcpdump;
    private final Path file;

    private LoopbackCapture(Process tcpdump, Path file) {
        this.tcpdump = tcpdump;
        this.file = file;
    }

    /** Starts capturing and returns once tcpdump says it is listening. */
    static LoopbackCapture start(int port) throws IOException, InterruptedException {
        Path file = Files.createTempFile("overlay-capture", ".pcap");
        Process p;
        try {
            p = new ProcessBuilder("tcpdump", "-i", "lo", "--immediate-mode", "-U", "-s", "0", "-w", file.toString(),
                    "tcp port " + port).redirectErrorStream(true).start();
        } catch (IOException e) {
            throw new IOException("tcpdump is needed to capture the overlay traffic (apt-get install tcpdump)", e);
        }
        CompletableFuture<String> listening = new CompletableFuture<>();
        Thread reader = new Thread(() -> {
            StringBuilder said = new StringBuilder();
            try {
                for (String line : (Iterable<String>) new java.io.BufferedReader(new java.io.InputStreamReader(
                        p.getInputStream(), StandardCharsets.UTF_8)).lines()::iterator) {
                    said.append(line).append('\n');
                    if (line.contains("listening on")) {
                        listening.complete(line);
                    }
                }
            } finally {
                listening.completeExceptionally(new IOException("tcpdump ended: " + said));
            }
        }, "tcpdump-output");
        reader.setDaemon(true);
        reader.start();
        try {
            listening.get(20, TimeUnit.SECONDS);
        } catch (Exception e) {
            p.destroyForcibly();
            throw new IOException("tcpdump did not start capturing: " + e.getMessage(), e);
        }
        return new LoopbackCapture(p, file);
    }

    /** Stops the capture and returns the capture file's bytes (pcap framing around the packets). */
    byte[] stop() throws IOException, InterruptedException {
        tcpdump.destroy();
        if (!tcpdump.waitFor(10, TimeUnit.SECONDS)) {
            tcpdump.destroyForcibly().waitFor(5, TimeUnit.SECONDS);
        }
        return Files.readAllBytes(file);
    }

    @Override
    public void close() throws IOException {
        tcpdump.destroyForcibly();
        Files.deleteIfExists(file);
    }
}
