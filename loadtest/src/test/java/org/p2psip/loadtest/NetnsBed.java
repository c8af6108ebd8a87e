package org.p2psip.loadtest;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;

/**
 * A test bed of hosts on one machine: each host a Linux network namespace
 * with its own address on a bridge that only these namespaces join
 * ({@code 10.X.Y.i/24}, X and Y random). What loopback hides shows here:
 * a wildcard bind, an address a node must advertise, a UA that can only
 * reach what it was told. Needs root ({@code ip netns}); the bed removes
 * every namespace and link it made when closed.
 */
final class NetnsBed implements AutoCloseable {

    /** One host: a namespace and its address. */
    record Host(String namespace, String address) {
        /** The command prefix that runs a program on this host. */
        List<String> exec() {
            return List.of("ip", "netns", "exec", namespace);
        }
    }

    private final String tag;
    private final String bridge;
    private final List<Host> hosts = new ArrayList<>();

    private NetnsBed(String tag) {
        this.tag = tag;
        this.bridge = "p2pbr" + tag;
    }

    /** A bridge and {@code count} hosts on it, or an AssertionError saying why not (not root, no ip tool). */
    static NetnsBed create(int count) throws IOException, InterruptedException {
        if (!"root".equals(System.getProperty("user.name"))) {
            throw new AssertionError("the namespace test bed needs root (ip netns); run the tests as root");
        }
        String tag = String.format(Locale.ROOT, "%04x", ThreadLocalRandom.current().nextInt(0x10000));
        int x = 100 + ThreadLocalRandom.current().nextInt(100);
        int y = ThreadLocalRandom.current().nextInt(250);
        NetnsBed bed = new NetnsBed(tag);
        try {
            bed.run("ip", "link", "add", bed.bridge, "type", "bridge");
            bed.run("ip", "link", "set", bed.bridge, "up");
            for (int i = 1; i <= count; i++) {
                String ns = "p2p" + tag + "h" + i;
                String outside = "p2pv" + tag + i;
                String inside = "p2pn" + tag + i;
                String address = "10." + x + "." + y + "." + (i + 1);
                bed.run("ip", "netns", "add", ns);
                bed.hosts.add(new Host(ns, address));
                bed.run("ip", "link", "add", outside, "type", "veth", "peer", "name", inside);
                bed.run("ip", "link", "set", inside, "netns", ns);
                bed.run("ip", "link", "set", outside, "master", bed.bridge, "up");
                bed.run("ip", "netns", "exec", ns, "ip", "addr", "add", address + "/24", "dev", inside);
                bed.run("ip", "netns", "exec", ns, "ip", "link", "set", inside, "up");
                bed.run("ip", "netns", "exec", ns, "ip", "link", "set", "lo", "up");
            }
        } catch (IOException | InterruptedException | AssertionError e) {
            bed.close();
            throw e;
        }
        return bed;
    }

    /** Host {@code i}, counted from 1. */
    Host host(int i) {
        return hosts.get(i - 1);
    }

    private void run(String... command) throws IOException, InterruptedException {
        Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
        if (!p.waitFor(20, TimeUnit.SECONDS)) {
            p.destroyForcibly();
            throw new AssertionError(String.join(" ", command) + " did not finish");
        }
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).strip();
        if (p.exitValue() != 0) {
            throw new AssertionError(String.join(" ", command) + " failed: " + out);
        }
    }

    /** Removes the namespaces (their veth ends go with them) and the bridge. */
    @Override
    public void close() {
        for (Host h : hosts) {
            quietly("ip", "netns", "del", h.namespace());
        }
        quietly("ip", "link", "del", bridge);
    }

    private void quietly(String... command) {
        try {
            Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
            p.getInputStream().readAllBytes();
            p.waitFor(20, TimeUnit.SECONDS);
        } catch (IOException e) {
            // nothing more can be done about a link that will not go
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    @Override
    public String toString() {
        return "namespace bed " + tag + " " + hosts;
    }
}
