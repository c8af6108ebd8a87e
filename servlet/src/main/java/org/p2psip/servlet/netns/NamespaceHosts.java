package org.p2psip.servlet.netns;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;

/**
 * Hosts on one machine: each a Linux network namespace with its own IPv4
 * address on a bridge that only they join ({@code PREFIX.i/24}). A node
 * bound to its host's address, a balancer that must advertise the address
 * phones reach, a phone that can reach only what it was told: what
 * loopback hides shows here. Made with {@code ip} (iproute2), so it needs
 * root; everything it made is removed on {@link #close()}.
 *
 * <p>Namespace and link names carry a random tag, so several sets of
 * hosts (a test's and a user's) coexist. With {@code addressBridge} the
 * bridge gets {@code PREFIX.1} in the machine's own namespace, so programs
 * outside the hosts (a softphone on the desktop) reach them too.
 */
public final class NamespaceHosts implements AutoCloseable {

    /**
     * One host.
     *
     * @param name      what the caller called it ({@code lb}, {@code n1}, {@code c1})
     * @param namespace the network namespace
     * @param address   its IPv4 address on the bridge
     */
    public record Host(String name, String namespace, String address) {

        public Host {
            Objects.requireNonNull(name, "name");
            Objects.requireNonNull(namespace, "namespace");
            Objects.requireNonNull(address, "address");
        }

        /** The command prefix that runs a program on this host. */
        public List<String> exec() {
            return List.of("ip", "netns", "exec", namespace);
        }
    }

    private final String tag;
    private final String bridge;
    private final Map<String, Host> hosts = new LinkedHashMap<>();

    private NamespaceHosts(String tag) {
        this.tag = tag;
        this.bridge = "p2pbr" + tag;
    }

    /**
     * Makes the bridge and one host per entry of {@code lastOctets} (host
     * name to the last octet of its address), in order.
     *
     * @param prefix        the first three octets of the /24, {@code 10.213.7}
     * @param addressBridge give the bridge {@code PREFIX.1} in this machine's namespace
     * @throws NamespaceHostsException with a one-line reason: not root, no {@code ip}, a step refused
     */
    public static NamespaceHosts create(String prefix, Map<String, Integer> lastOctets, boolean addressBridge)
            throws NamespaceHostsException {
        if (!isPrefix(prefix)) {
            throw new NamespaceHostsException("'" + prefix + "' is not the first three octets of an IPv4 /24 "
                    + "(like 10.213.7)");
        }
        if (!"root".equals(System.getProperty("user.name"))) {
            throw new NamespaceHostsException("network namespaces need root (ip netns); run as root");
        }
        String tag = String.format(Locale.ROOT, "%04x", ThreadLocalRandom.current().nextInt(0x10000));
        NamespaceHosts made = new NamespaceHosts(tag);
        try {
            made.run("ip", "link", "add", made.bridge, "type", "bridge");
            made.run("ip", "link", "set", made.bridge, "up");
            if (addressBridge) {
                made.run("ip", "addr", "add", prefix + ".1/24", "dev", made.bridge);
            }
            int i = 0;
            for (Map.Entry<String, Integer> e : lastOctets.entrySet()) {
                i++;
                int octet = e.getValue();
                if (octet < 2 || octet > 254) {
                    throw new NamespaceHostsException("host " + e.getKey() + ": last octet " + octet + " not in 2..254");
                }
                String ns = "p2p" + tag + e.getKey();
                String outside = "p2pv" + tag + i;
                String inside = "p2pn" + tag + i;
                String address = prefix + "." + octet;
                made.run("ip", "netns", "add", ns);
                made.hosts.put(e.getKey(), new Host(e.getKey(), ns, address));
                made.run("ip", "link", "add", outside, "type", "veth", "peer", "name", inside);
                made.run("ip", "link", "set", inside, "netns", ns);
                made.run("ip", "link", "set", outside, "master", made.bridge, "up");
                made.run("ip", "netns", "exec", ns, "ip", "addr", "add", address + "/24", "dev", inside);
                made.run("ip", "netns", "exec", ns, "ip", "link", "set", inside, "up");
                made.run("ip", "netns", "exec", ns, "ip", "link", "set", "lo", "up");
            }
        } catch (NamespaceHostsException e) {
            made.close();
            throw e;
        }
        return made;
    }

    /** {@code count} hosts {@code h1..hN} at {@code .2..}, on a random 10.x.y.0/24 the machine itself stays off. */
    public static NamespaceHosts random(int count) throws NamespaceHostsException {
        Map<String, Integer> octets = new LinkedHashMap<>();
        for (int i = 1; i <= count; i++) {
            octets.put("h" + i, i + 1);
        }
        ThreadLocalRandom r = ThreadLocalRandom.current();
        return create("10." + (100 + r.nextInt(100)) + "." + r.nextInt(250), octets, false);
    }

    /** The host named {@code name}. */
    public Host host(String name) {
        Host h = hosts.get(name);
        if (h == null) {
            throw new IllegalArgumentException("no host " + name + " among " + hosts.keySet());
        }
        return h;
    }

    /** Host {@code i} of {@link #random}, counted from 1. */
    public Host host(int i) {
        return host("h" + i);
    }

    public List<Host> hosts() {
        return List.copyOf(hosts.values());
    }

    /** The bridge's name, for the "how to clean up by hand" line. */
    public String bridge() {
        return bridge;
    }

    /** Whether {@code prefix} is the first three octets of an IPv4 address, {@code 10.213.7}. */
    public static boolean isPrefix(String prefix) {
        String[] octets = prefix.split("\\.", -1);
        boolean ok = octets.length == 3;
        for (int i = 0; ok && i < 3; i++) {
            ok = !octets[i].isEmpty() && octets[i].length() <= 3 && octets[i].chars().allMatch(Character::isDigit)
                    && Integer.parseInt(octets[i]) <= 255;
        }
        return ok;
    }

    private void run(String... command) throws NamespaceHostsException {
        try {
            Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
            if (!p.waitFor(20, TimeUnit.SECONDS)) {
                p.destroyForcibly();
                throw new NamespaceHostsException(String.join(" ", command) + " did not finish within 20 s");
            }
            String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).strip()
                    .replace('\n', ' ');
            if (p.exitValue() != 0) {
                throw new NamespaceHostsException(String.join(" ", command) + " failed: " + out);
            }
        } catch (IOException e) {
            throw new NamespaceHostsException("cannot run " + command[0] + " (install iproute2): " + e.getMessage());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new NamespaceHostsException("interrupted while running " + String.join(" ", command));
        }
    }

    /** Removes the namespaces (their veth ends go with them) and the bridge. */
    @Override
    public void close() {
        for (Host h : new ArrayList<>(hosts.values())) {
            quietly("ip", "netns", "del", h.namespace());
        }
        hosts.clear();
        quietly("ip", "link", "del", bridge);
    }

    private static void quietly(String... command) {
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
        return "hosts " + tag + " " + hosts.values();
    }
}
