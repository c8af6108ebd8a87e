package org.p2psip.loadtest.scale;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

import org.p2psip.core.net.HostPort;

/**
 * Runs SIPp (Debian's {@code sip-tester}) against the same balancer at the
 * rate our generator found, registering distinct AORs as our register
 * scenario does, and compares the rates the two achieved: a second
 * opinion from a load generator nobody here wrote.
 */
final class SippCrossCheck {

    /** One REGISTER per SIPp call, for the AOR and contact of the injection file's row. */
    private static final String SCENARIO = """
            <?xml version="1.0" encoding="ISO-8859-1" ?>
            <!DOCTYPE scenario SYSTEM "sipp.dtd">
            <scenario name="p2psip scale cross-check register">
              <send retrans="500">
                <![CDATA[

                  REGISTER sip:[remote_ip]:[remote_port] SIP/2.0
                  Via: SIP/2.0/[transport] [local_ip]:[local_port];branch=[branch]
                  Max-Forwards: 70
                  From: <sip:[field0]@[remote_ip]:[remote_port]>;tag=[pid]x[call_number]
                  To: <sip:[field0]@[remote_ip]:[remote_port]>
                  Call-ID: [call_id]
                  CSeq: 1 REGISTER
                  Contact: <sip:[field0]@[local_ip]:[local_port]>
                  Expires: 3600
                  Content-Length: 0

                ]]>
              </send>
              <recv response="200"/>
            </scenario>
            """;

    /** How long SIPp sends: long enough that its start-up is a small part of the elapsed time. */
    static final double SECONDS = 4;

    private SippCrossCheck() {
    }

    /** The sipp binary on the PATH, if any. */
    static Optional<Path> binary() {
        for (String dir : System.getenv().getOrDefault("PATH", "/usr/bin:/bin").split(":")) {
            Path p = Path.of(dir.isEmpty() ? "." : dir, "sipp");
            if (Files.isExecutable(p)) {
                return Optional.of(p);
            }
        }
        return Optional.empty();
    }

    /**
     * Runs SIPp at {@code rate} for {@link #SECONDS} against {@code target}
     * and judges its achieved rate against {@code ourAchieved}.
     */
    static SippCheck run(HostPort target, double rate, double ourAchieved, Path workDir) {
        Optional<Path> sipp = binary();
        if (sipp.isEmpty()) {
            return SippCheck.notRun(rate, ourAchieved, "sipp is not installed (Debian package sip-tester)");
        }
        try {
            Files.createDirectories(workDir);
            Path scenario = workDir.resolve("register.xml");
            Files.writeString(scenario, SCENARIO, StandardCharsets.ISO_8859_1);
            long count = Math.max(100, Math.round(rate * SECONDS));
            String tag = Long.toString(System.currentTimeMillis(), 36);
            Path users = workDir.resolve("users.csv");
            StringBuilder rows = new StringBuilder((int) count * 16).append("SEQUENTIAL\n");
            for (long i = 0; i < count; i++) {
                rows.append("sipp").append(tag).append('-').append(i).append('\n');
            }
            Files.writeString(users, rows, StandardCharsets.ISO_8859_1);
            Path stat = workDir.resolve("stat.csv");
            Files.deleteIfExists(stat);
            int port = LocalPorts.consecutive(1, target.port(), target.port() + 1);
            long timeout = (long) Math.ceil(SECONDS * 3 + 10);
            List<String> command = new ArrayList<>(List.of(sipp.get().toString(), "-sf", scenario.toString(),
                    "-inf", users.toString(), "-cid_str", "xc-" + tag + "-%u",
                    "-m", Long.toString(count), "-r", Long.toString(Math.round(rate)),
                    "-l", Long.toString(Math.max(1000, Math.round(rate * 2))),
                    "-i", "127.0.0.1", "-p", Integer.toString(port),
                    "-trace_stat", "-stf", stat.toString(), "-fd", "1",
                    "-nostdin", "-timeout", timeout + "s", "-timeout_error", target.toString()));
            Process p = new ProcessBuilder(command).directory(workDir.toFile()).redirectErrorStream(true)
                    .redirectOutput(workDir.resolve("sipp-output.log").toFile()).start();
            long began = System.nanoTime();
            try {
                if (!p.waitFor(timeout + 15, TimeUnit.SECONDS)) {
                    p.destroyForcibly().waitFor(5, TimeUnit.SECONDS);
                    return SippCheck.notRun(rate, ourAchieved, "SIPp overran its own timeout");
                }
            } catch (InterruptedException e) {
                p.destroyForcibly();
                Thread.currentThread().interrupt();
                return SippCheck.notRun(rate, ourAchieved, "interrupted");
            }
            double wall = (System.nanoTime() - began) / 1e9;
            Optional<SippStats> stats = Files.exists(stat)
                    ? SippStats.lastRow(Files.readAllLines(stat, StandardCharsets.ISO_8859_1)) : Optional.empty();
            if (stats.isEmpty()) {
                return SippCheck.notRun(rate, ourAchieved, "SIPp wrote no statistics (exit " + p.exitValue() + ")");
            }
            SippStats s = stats.get();
            // SIPp's own clock when it has one; our wall clock (which includes its start-up) otherwise.
            double elapsed = s.elapsedSeconds() > 0 ? s.elapsedSeconds() : wall;
            // Like ours: never shorter than the sending schedule, so an early finish is not a higher rate.
            double achieved = s.successful() / Math.max(elapsed, count / rate);
            return SippCheck.judge(rate, ourAchieved, achieved, s.successful(), s.failed());
        } catch (IOException | RuntimeException e) {
            return SippCheck.notRun(rate, ourAchieved, "SIPp could not run: " + e.getMessage());
        }
    }
}
