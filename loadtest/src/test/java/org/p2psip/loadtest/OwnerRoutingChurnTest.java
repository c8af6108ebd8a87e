package org.p2psip.loadtest;

import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.p2psip.core.net.HostPort;
import org.p2psip.core.testing.FreePorts;
import org.p2psip.loadtest.bench.LoadReport;
import org.p2psip.loadtest.bench.LoadRun;
import org.p2psip.loadtest.bench.LoadSpec;
import org.p2psip.loadtest.bench.Scenario;

/**
 * Owner routing while the membership changes, as an operator would change
 * it: three node processes, started one after another, with two copies of
 * every binding behind a
 * {@code p2psip lb} (owner policy) that already lists a fourth; REGISTERs of
 * distinct AORs at a steady rate through the balancer; the fourth node
 * starts and joins a third of the way in, and one of the first three is
 * SIGKILLed two thirds of the way in. Fewer than 1 % of the REGISTERs may
 * fail. A REGISTER a node sheds (503 with Retry-After) is sent again once
 * after the wait, as a phone does; how many were is reported. Before that, unmeasured, 100/s for 15 s and then half the rate for
 * {@code -Dchurn.settle.seconds} (20): the nodes run compiled code, and the
 * joiner finds a ring that already holds bindings to hand over, which is
 * what makes a join cost anything.
 *
 * <p>It also reports, from the nodes' metrics scraped every half second,
 * how long after each change the share of key operations started away from
 * the key's owner took to fall back under 5 %: the time the DHT took to
 * settle the ownership plus the balancer's catching up, which is at most one
 * probe interval (1 s) for a claim and three for a node that went silent.
 */
@Timeout(600)
class OwnerRoutingChurnTest {

    private static final String DOMAIN = "p2psip.test";
    /**
     * REGISTERs per second unless {@code -Dchurn.rate.DHT=N} names another for a backend (a measured half
     * capacity); {@code -Dchurn.dht=chord,...} runs only the backends named.
     */
    private static final String DEFAULT_RATE = "300";
    private static final int SECONDS = 45;
    private static final Pattern KEY_OPS = Pattern.compile(
            "^p2psip_dht_key_operations_total\\{placement=\"(local|remote)\"\\}\\s+(\\S+)$", Pattern.MULTILINE);

    private static final Pattern SHED = Pattern.compile(
            "^p2psip_sip_overload_rejections_total\\s+(\\S+)$", Pattern.MULTILINE);
    private static final Pattern ADMISSION_REFUSED = Pattern.compile(
            "^p2psip_dht_admission_refused_total\\s+(\\S+)$", Pattern.MULTILINE);
    private static final Pattern ADMISSION_LIMIT = Pattern.compile(
            "^p2psip_dht_admission_limit\\s+(\\S+)$", Pattern.MULTILINE);

    /**
     * Key operations started on owners and elsewhere, requests shed with 503 (of them, by the DHT admission),
     * summed over the nodes scraped, and the lowest admission limit among them, at {@code atMillis}.
     */
    private record KeyOps(long atMillis, long local, long remote, long shed, long shedForDht, long lowestLimit) {
    }

    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(1)).build();
    /**
     * The last count of requests each node (by metrics port) shed with 503, which the balancer sends on to
     * another node or relays as 500.
     */
    private final Map<Integer, Long> shed = new LinkedHashMap<>();

    @ParameterizedTest
    @ValueSource(strings = {"hazelcast", "chord", "kademlia"})
    void aNodeJoiningAndOneKilledDuringLoadCostUnderOnePercent(String dht) throws Exception {
        String only = System.getProperty("churn.dht", "");
        assumeTrue(only.isEmpty() || List.of(only.split(",")).contains(dht), "-Dchurn.dht=" + only);
        double rate = Double.parseDouble(System.getProperty("churn.rate." + dht, DEFAULT_RATE));
        int lbPort = FreePorts.udpAndTcp();
        int joinerSip = FreePorts.udpAndTcp();
        try (OverlayNodes nodes = new OverlayNodes(dht, 2, Optional.of(DOMAIN), Optional.of(lbPort))) {
            // One after another, as 'p2psip cluster' and an operator's rolling start bring nodes up.
            OverlayNodes.Member seed = nodes.startOneByOne(3);
            List<OverlayNodes.Member> first = nodes.members();
            String list = first.stream().map(m -> "127.0.0.1:" + m.sip()).collect(Collectors.joining(","))
                    + ",127.0.0.1:" + joinerSip;
            try (NodeProcess lb = NodeProcess.start("lb", "--sip", "127.0.0.1:" + lbPort, "--nodes", list,
                    "--trusted-source", "127.0.0.1")) {
                lb.awaitOutput("p2psip lb listening", Duration.ofSeconds(30));
                HostPort target = new HostPort("127.0.0.1", lbPort);
                // Unmeasured: the JVMs compile their hot code, and the balancer hears every node's claim.
                LoadRun.run(spec(target, 100, 1_500, 1_000_000));
                long settling = Long.getLong("churn.settle.seconds", 20);
                if (settling > 0) {
                    LoadRun.run(spec(target, rate / 2, Math.round(rate / 2 * settling), 1_500_000));
                }

                List<OverlayNodes.Member> live = new ArrayList<>(first);
                List<KeyOps> samples = new ArrayList<>();
                long t0 = System.currentTimeMillis();
                CompletableFuture<LoadReport> load = CompletableFuture.supplyAsync(
                        () -> LoadRun.run(spec(target, rate, Math.round(rate * SECONDS), 2_000_000)));
                long joinAt = -1;
                long killAt = -1;
                while (!load.isDone()) {
                    long now = System.currentTimeMillis() - t0;
                    if (joinAt < 0 && now >= SECONDS * 1000 / 3) {
                        live.add(nodes.start(seed, joinerSip));
                        joinAt = now;
                    }
                    if (killAt < 0 && now >= SECONDS * 2000 / 3) {
                        OverlayNodes.Member victim = first.get(1);
                        nodes.kill(List.of(victim));
                        live.remove(victim);
                        killAt = now;
                    }
                    scrape(live).ifPresent(k -> samples.add(new KeyOps(k.atMillis() - t0, k.local(), k.remote(),
                            k.shed(), k.shedForDht(), k.lowestLimit())));
                    TimeUnit.MILLISECONDS.sleep(500);
                }
                LoadReport report = load.get();
                String settle = String.format(Locale.ROOT, "owner share back above 95 %%: %s after the join, "
                        + "%s after the kill; shed by the nodes' overload gates (503): %s; "
                        + "shed by the live nodes per 5 s (join at %.0f s, kill at %.0f s): %s",
                        settledAfter(samples, joinAt), settledAfter(samples, killAt), shed.values(),
                        joinAt / 1000.0, killAt / 1000.0, shedTimeline(samples));
                System.out.printf("%s churn at %.0f/s: %d of %d failed %s, %d sent again after a 503's "
                        + "Retry-After; %s%n", dht, rate, report.failed(), report.attempted(), report.failures(),
                        report.retriedAfter503(), settle);
                assertTrue(report.attempted() >= rate * SECONDS * 0.95, report.toString());
                assertTrue(report.failed() * 100 < report.attempted(), () -> report + "; " + settle + "\n"
                        + nodes.nodeOutput() + "\n" + String.join("\n", lb.output()));
                List<String> liveWrittenOff = nodes.liveWriteOffs(List.of(first.get(1)));
                assertTrue(liveWrittenOff.isEmpty(), () -> "live peers taken for dead:\n"
                        + String.join("\n", liveWrittenOff));
            }
        }
    }

    private static LoadSpec spec(HostPort target, double rate, long count, long firstIndex) {
        return LoadSpec.of(Scenario.REGISTER, target).withDomain(DOMAIN).withRate(rate).withCount(count)
                .withFirstIndex(firstIndex).withDuration(Duration.ofSeconds(count / (long) rate + 60))
                .withHonourRetryAfter(true);
    }

    /** The nodes' key operations now; empty when one of them did not answer (a node just killed, or starting). */
    private Optional<KeyOps> scrape(List<OverlayNodes.Member> members) throws InterruptedException {
        long local = 0;
        long remote = 0;
        long shedNow = 0;
        long shedForDht = 0;
        long lowestLimit = Long.MAX_VALUE;
        for (OverlayNodes.Member m : members) {
            HttpRequest get = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + m.metrics() + "/metrics"))
                    .timeout(Duration.ofSeconds(1)).build();
            try {
                HttpResponse<String> answer = http.send(get, HttpResponse.BodyHandlers.ofString());
                Matcher s = SHED.matcher(answer.body());
                if (s.find()) {
                    shed.put(m.metrics(), (long) Double.parseDouble(s.group(1)));
                    shedNow += (long) Double.parseDouble(s.group(1));
                }
                Matcher a = ADMISSION_REFUSED.matcher(answer.body());
                if (a.find()) {
                    shedForDht += (long) Double.parseDouble(a.group(1));
                }
                Matcher l = ADMISSION_LIMIT.matcher(answer.body());
                if (l.find()) {
                    lowestLimit = Math.min(lowestLimit, (long) Double.parseDouble(l.group(1)));
                }
                Matcher k = KEY_OPS.matcher(answer.body());
                while (k.find()) {
                    long n = (long) Double.parseDouble(k.group(2));
                    if (k.group(1).equals("local")) {
                        local += n;
                    } else {
                        remote += n;
                    }
                }
            } catch (IOException e) {
                return Optional.empty();
            }
        }
        return Optional.of(new KeyOps(System.currentTimeMillis(), local, remote, shedNow, shedForDht, lowestLimit));
    }

    /**
     * Requests the live nodes shed in each 5 s of the run, from the samples' counters (a node killed or
     * joining changes the sum, so a step across a membership change is left out as "?"), as "all/for the
     * DHT@lowest admission limit at the end".
     */
    private static String shedTimeline(List<KeyOps> samples) {
        List<String> buckets = new ArrayList<>();
        KeyOps from = null;
        for (KeyOps k : samples) {
            if (from == null) {
                from = k;
            } else if (k.atMillis() - from.atMillis() >= 5_000) {
                long d = k.shed() - from.shed();
                long dht = k.shedForDht() - from.shedForDht();
                buckets.add(String.format(Locale.ROOT, "%.0fs:", from.atMillis() / 1000.0)
                        + (d < 0 || dht < 0 ? "?" : d + "/" + dht) + "@" + k.lowestLimit());
                from = k;
            }
        }
        return buckets.toString();
    }

    /**
     * How long after {@code eventMillis} the key operations between two
     * samples were again at least 95 % on their owners, for two intervals in a
     * row; "never" when they were not by the end.
     */
    private static String settledAfter(List<KeyOps> samples, long eventMillis) {
        int good = 0;
        for (int i = 1; i < samples.size(); i++) {
            KeyOps a = samples.get(i - 1);
            KeyOps b = samples.get(i);
            if (a.atMillis() < eventMillis) {
                continue;
            }
            long local = b.local() - a.local();
            long all = local + b.remote() - a.remote();
            boolean owned = all > 0 && local >= 0.95 * all;
            good = owned ? good + 1 : 0;
            if (good == 2) {
                return String.format(Locale.ROOT, "%.1f s", (samples.get(i - 1).atMillis() - eventMillis) / 1000.0);
            }
        }
        return "never";
    }
}
