package org.p2psip.loadtest.flood;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.StandardSocketOptions;
import java.nio.ByteBuffer;
import java.nio.channels.DatagramChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.Callable;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;

import org.p2psip.core.net.HostPort;
import org.p2psip.loadtest.process.TargetSample;

import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/**
 * {@code p2psip bench flood}: one source sends random datagrams at a SIP
 * target while a probe client on another source sends one valid OPTIONS
 * every 100 ms, and reports the share of probes answered within a second,
 * the target's memory before and after, and how much its log grew:
 * Kamailio's flood test, run against our node or balancer. With
 * {@code --kind register --sources N} the flood is instead well-formed
 * REGISTERs without credentials, spread over N source addresses, so that
 * each stays under a per-source limit the total is far over (a distributed
 * flood). Aimed at loopback addresses only; bounded in time.
 */
@Command(name = "flood", mixinStandardHelpOptions = true, sortOptions = false,
        description = "Flood a SIP target on a loopback address with random UDP datagrams from one source (or "
                + "REGISTERs without credentials from --sources addresses, --kind register) while a probe "
                + "client on another source sends one OPTIONS every --probe-interval; report the share of "
                + "probes answered within 1 s, the target's RSS before and after (--pid) and its log's growth "
                + "(--log). Loopback targets only.")
public final class FloodCommand implements Callable<Integer> {

    private static final long MAX_SECONDS = 600;

    @Spec
    CommandSpec spec;

    @Option(names = "--target", required = true, paramLabel = "HOST:PORT",
            description = "The node or balancer (UDP), on a 127.0.0.0/8 address.")
    String target;

    @Option(names = "--rate", paramLabel = "N",
            description = "Garbage datagrams per second; 0 sends as fast as one thread can. Default: ${DEFAULT-VALUE}.")
    int rate = 50_000;

    @Option(names = "--duration", paramLabel = "SECONDS",
            description = "How long the flood lasts (at most 600). Default: ${DEFAULT-VALUE}.")
    long durationSeconds = 20;

    @Option(names = "--size", paramLabel = "BYTES",
            description = "Largest garbage datagram; each is 20 bytes to this many, random. Default: ${DEFAULT-VALUE}.")
    int maxSize = 1_400;

    @Option(names = "--source", paramLabel = "ADDRESS",
            description = "Where the flood comes from; with --sources N, the first of N consecutive addresses. "
                    + "Default: ${DEFAULT-VALUE}.")
    String source = "127.0.0.2";

    @Option(names = "--sources", paramLabel = "N",
            description = "Source addresses the flood is spread over, one after another (1-1000). "
                    + "Default: ${DEFAULT-VALUE}.")
    int sources = 1;

    @Option(names = "--kind", paramLabel = "KIND",
            description = "garbage (random bytes) or register (REGISTERs without credentials, each a new "
                    + "transaction of a new AOR in --domain). Default: ${DEFAULT-VALUE}.")
    String kind = "garbage";

    @Option(names = "--domain", paramLabel = "DOMAIN",
            description = "The domain the REGISTERs are for (--kind register). Default: the target's host.")
    String domain;

    @Option(names = "--probe-source", paramLabel = "ADDRESS",
            description = "Where the probe client sends from. Default: ${DEFAULT-VALUE}.")
    String probeSource = "127.0.0.3";

    @Option(names = "--probe-interval", paramLabel = "MILLIS", description = "Default: ${DEFAULT-VALUE}.")
    long probeIntervalMillis = 100;

    @Option(names = "--pid", paramLabel = "PID", description = "The target's process, to read its RSS.")
    long pid;

    @Option(names = "--log", paramLabel = "FILE", description = "The target's log file, to measure its growth.")
    Path log;

    public static CommandLine commandLine() {
        return new CommandLine(new FloodCommand());
    }

    @Override
    public Integer call() throws Exception {
        HostPort to = HostPort.parse(target);
        InetAddress targetAddress = InetAddress.getByName(to.host());
        InetAddress from = InetAddress.getByName(source);
        InetAddress probeFrom = InetAddress.getByName(probeSource);
        if (!targetAddress.isLoopbackAddress() || !from.isLoopbackAddress() || !probeFrom.isLoopbackAddress()) {
            throw new ParameterException(spec.commandLine(), "the flood goes to and comes from loopback addresses only");
        }
        if (durationSeconds < 1 || durationSeconds > MAX_SECONDS || rate < 0 || maxSize < 20 || maxSize > 65_507
                || probeIntervalMillis < 10 || sources < 1 || sources > 1_000) {
            throw new ParameterException(spec.commandLine(), "--duration 1..600, --rate 0 or more, --size 20..65507, "
                    + "--probe-interval at least 10, --sources 1..1000");
        }
        if (!kind.equals("garbage") && !kind.equals("register")) {
            throw new ParameterException(spec.commandLine(), "--kind is garbage or register, not '" + kind + "'");
        }
        List<InetAddress> froms = consecutive(from, sources);
        if (!froms.get(froms.size() - 1).isLoopbackAddress() || froms.contains(probeFrom)) {
            throw new ParameterException(spec.commandLine(), "--source and --sources must stay in 127.0.0.0/8 and "
                    + "leave out the probe's address " + probeFrom.getHostAddress());
        }
        InetSocketAddress dest = new InetSocketAddress(targetAddress, to.port());
        long rssBefore = rss();
        long logBefore = logSize();
        FloodReport report = run(dest, froms, probeFrom);
        // Let the target settle (drain queues, a young collection) before its memory is read again.
        LockSupport.parkNanos(3_000_000_000L);
        FloodReport withMemory = new FloodReport(report.garbageSent(), report.seconds(), report.probesSent(),
                report.latenciesMillis(), rssBefore, rss(), logBefore < 0 ? -1 : logSize() - logBefore);
        System.out.print(withMemory.text());
        return 0;
    }

    private FloodReport run(InetSocketAddress dest, List<InetAddress> from, InetAddress probeFrom) throws Exception {
        AtomicBoolean stop = new AtomicBoolean();
        AtomicLong sent = new AtomicLong();
        long start = System.nanoTime();
        long end = start + durationSeconds * 1_000_000_000L;
        Thread flooder = new Thread(() -> flood(dest, from, end, sent), "flood");
        flooder.setDaemon(true);
        try (DatagramChannel probe = DatagramChannel.open()) {
            probe.bind(new InetSocketAddress(probeFrom, 0));
            probe.configureBlocking(false);
            Map<String, Long> outstanding = new ConcurrentHashMap<>();
            List<Long> latencies = new ArrayList<>();
            flooder.start();
            int probes = 0;
            long nextProbe = start;
            ByteBuffer in = ByteBuffer.allocate(65_536);
            // After the flood, a second more for the last probes' answers.
            while (System.nanoTime() < end + 1_000_000_000L) {
                long now = System.nanoTime();
                if (now >= nextProbe && now < end) {
                    String id = "flood-probe-" + probes + "-" + Long.toHexString(start);
                    probe.send(ByteBuffer.wrap(options(dest, probe, id)), dest);
                    outstanding.put(id, now);
                    probes++;
                    nextProbe += probeIntervalMillis * 1_000_000L;
                }
                in.clear();
                if (probe.receive(in) != null) {
                    in.flip();
                    String text = StandardCharsets.ISO_8859_1.decode(in).toString();
                    Long sentAt = outstanding.remove(callId(text));
                    if (sentAt != null && text.startsWith("SIP/2.0 ")) {
                        latencies.add((System.nanoTime() - sentAt) / 1_000_000);
                    }
                } else {
                    LockSupport.parkNanos(200_000);
                }
            }
            stop.set(true);
            flooder.join(5_000);
            double seconds = Math.min(System.nanoTime(), end) - start;
            return new FloodReport(sent.get(), seconds / 1e9, probes,
                    latencies.stream().mapToLong(Long::longValue).toArray(), -1, -1, -1);
        }
    }

    /** {@code count} addresses from {@code first} on, in order. */
    static List<InetAddress> consecutive(InetAddress first, int count) throws IOException {
        byte[] raw = first.getAddress();
        if (raw.length != 4) {
            throw new IOException("--source must be an IPv4 address");
        }
        long base = ((raw[0] & 0xffL) << 24) | ((raw[1] & 0xff) << 16) | ((raw[2] & 0xff) << 8) | (raw[3] & 0xff);
        List<InetAddress> out = new ArrayList<>(count);
        for (int i = 0; i < count; i++) {
            long a = base + i;
            out.add(InetAddress.getByAddress(new byte[] {(byte) (a >>> 24), (byte) (a >>> 16), (byte) (a >>> 8),
                    (byte) a}));
        }
        return out;
    }

    private void flood(InetSocketAddress dest, List<InetAddress> from, long end, AtomicLong sent) {
        SplittableRandom random = new SplittableRandom();
        byte[] garbage = new byte[maxSize];
        long gap = rate == 0 ? 0 : 1_000_000_000L / rate;
        List<DatagramChannel> outs = new ArrayList<>();
        try {
            for (InetAddress address : from) {
                DatagramChannel channel = DatagramChannel.open();
                outs.add(channel);
                channel.setOption(StandardSocketOptions.SO_SNDBUF, 1 << 20);
                channel.bind(new InetSocketAddress(address, 0));
            }
            String realm = domain != null ? domain : dest.getAddress().getHostAddress();
            long next = System.nanoTime();
            while (true) {
                long now = System.nanoTime();
                if (now >= end) {
                    return;
                }
                if (gap > 0 && now < next) {
                    if (next - now > 50_000) {
                        LockSupport.parkNanos(next - now - 20_000);
                    }
                    continue;
                }
                long n = sent.get();
                DatagramChannel out = outs.get((int) (n % outs.size()));
                ByteBuffer datagram;
                if (kind.equals("register")) {
                    datagram = ByteBuffer.wrap(register(dest, out, realm, n));
                } else {
                    int size = 20 + random.nextInt(maxSize - 19);
                    for (int i = 0; i < size; i += 8) {
                        long r = random.nextLong();
                        for (int k = 0; k < 8 && i + k < size; k++) {
                            garbage[i + k] = (byte) (r >>> (8 * k));
                        }
                    }
                    datagram = ByteBuffer.wrap(garbage, 0, size);
                }
                try {
                    out.send(datagram, dest);
                    sent.incrementAndGet();
                } catch (IOException e) {
                    // A full socket buffer or an ICMP error from the target: keep flooding.
                }
                next += gap;
            }
        } catch (IOException e) {
            System.err.println("flood: cannot send from " + from + ": " + e.getMessage());
        } finally {
            for (DatagramChannel channel : outs) {
                try {
                    channel.close();
                } catch (IOException e) {
                    // closing a datagram channel fails only when it is already closed
                }
            }
        }
    }

    /** The {@code n}th REGISTER of the flood: a new AOR, Call-ID and branch, and no credentials. */
    static byte[] register(InetSocketAddress dest, DatagramChannel from, String domain, long n) throws IOException {
        InetSocketAddress self = (InetSocketAddress) from.getLocalAddress();
        String me = self.getAddress().getHostAddress() + ":" + self.getPort();
        // A branch is a token (RFC 3261 §25.1): no colon in it.
        String id = "flood-" + n + "-" + me.replace(':', '-');
        String text = "REGISTER sip:" + domain + " SIP/2.0\r\n"
                + "Via: SIP/2.0/UDP " + me + ";branch=z9hG4bK" + id + ";rport\r\n"
                + "Max-Forwards: 70\r\n"
                + "From: <sip:f" + n + "@" + domain + ">;tag=" + n + "\r\n"
                + "To: <sip:f" + n + "@" + domain + ">\r\n"
                + "Call-ID: " + id + "\r\n"
                + "CSeq: 1 REGISTER\r\n"
                + "Contact: <sip:f" + n + "@" + me + ">\r\n"
                + "Expires: 600\r\n"
                + "Content-Length: 0\r\n\r\n";
        return text.getBytes(StandardCharsets.US_ASCII);
    }

    private static byte[] options(InetSocketAddress dest, DatagramChannel probe, String callId) throws IOException {
        InetSocketAddress self = (InetSocketAddress) probe.getLocalAddress();
        String me = self.getAddress().getHostAddress() + ":" + self.getPort();
        String uri = "sip:" + dest.getAddress().getHostAddress() + ":" + dest.getPort();
        String text = "OPTIONS " + uri + " SIP/2.0\r\n"
                + "Via: SIP/2.0/UDP " + me + ";branch=z9hG4bK" + callId + ";rport\r\n"
                + "Max-Forwards: 70\r\n"
                + "From: <sip:probe@" + me + ">;tag=" + callId + "\r\n"
                + "To: <" + uri + ">\r\n"
                + "Call-ID: " + callId + "\r\n"
                + "CSeq: 1 OPTIONS\r\n"
                + "Content-Length: 0\r\n\r\n";
        return text.getBytes(StandardCharsets.US_ASCII);
    }

    static String callId(String message) {
        for (String line : message.split("\r\n")) {
            int colon = line.indexOf(':');
            if (colon > 0) {
                String name = line.substring(0, colon).trim();
                if (name.equalsIgnoreCase("Call-ID") || name.equalsIgnoreCase("i")) {
                    return line.substring(colon + 1).trim();
                }
            }
        }
        return "";
    }

    private long rss() {
        return TargetSample.of(pid).rssKb();
    }

    private long logSize() {
        if (log == null) {
            return -1;
        }
        try {
            return Files.size(log);
        } catch (IOException e) {
            return -1;
        }
    }
}
