package org.p2psip.loadtest;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.p2psip.core.testing.FreePorts;

/**
 * Three node processes on 127.0.0.1 sharing one Hazelcast cluster, driven
 * from outside as an operator's phones would drive them.
 */
@Timeout(300)
class HazelcastClusterTest {

    @TempDir
    Path work;

    private final List<NodeProcess> nodes = new ArrayList<>();
    private final List<Integer> sipPorts = new ArrayList<>();
    private int seedOverlay;
    private int seedClients;

    @BeforeEach
    void startThreeNodes() throws Exception {
        Sipp.binary();
        for (int i = 0; i < 3; i++) {
            int sip = FreePorts.udpAndTcp();
            int overlay = FreePorts.udpAndTcp();
            List<String> args = new ArrayList<>(List.of("node", "--dht", "hazelcast",
                    "--sip", "127.0.0.1:" + sip, "--overlay", "127.0.0.1:" + overlay,
                    "--replicas", "2", "--min-expires", "1", "--max-contacts", "100", "--auth", "none"));
            // Every member also takes Hazelcast clients, each on a port of its own: the --dht-client node
            // below connects to the seed's and from there to the member that owns each key.
            int clients = FreePorts.udpAndTcp();
            args.addAll(List.of("--dht-option", "client-port=" + clients));
            if (i == 0) {
                seedOverlay = overlay;
                seedClients = clients;
            } else {
                args.addAll(List.of("--bootstrap", "127.0.0.1:" + seedOverlay));
            }
            NodeProcess node = NodeProcess.start(args.toArray(String[]::new));
            nodes.add(node);
            sipPorts.add(sip);
            node.awaitOutput("listening", Duration.ofSeconds(90));
        }
    }

    @AfterEach
    void stopNodes() throws Exception {
        for (NodeProcess n : nodes) {
            n.close();
        }
    }

    @Test
    void contactRegisteredThroughOneNodeIsCalledThroughAnother() throws Exception {
        int uasPort = FreePorts.udpAndTcp();
        Process uas = Sipp.startBackground(work, "-sn", "uas", "-i", "127.0.0.1", "-p", Integer.toString(uasPort));
        try {
            Sipp.Result register = Sipp.registerOne(work, "callee", "127.0.0.1:" + uasPort,
                    "127.0.0.1:" + sipPorts.get(2), "127.0.0.1:" + sipPorts.get(0));
            assertEquals(0, register.exitCode(), register.toString());

            Sipp.Result calls = Sipp.run(work, Duration.ofSeconds(90),
                    "-sn", "uac", "-s", "callee", "-m", "50", "-r", "10",
                    "-i", "127.0.0.1", "-p", Integer.toString(FreePorts.udpAndTcp()), "127.0.0.1:" + sipPorts.get(2));
            assertEquals(0, calls.exitCode(), calls.toString());
            assertEquals(50, calls.successful(), calls.toString());
        } finally {
            uas.destroy();
        }
    }

    @Test
    void clientNodeKeepsItsBindingsInTheExistingCluster() throws Exception {
        int clientSip = FreePorts.udpAndTcp();
        try (NodeProcess client = NodeProcess.start("node", "--dht", "hazelcast", "--dht-client", "--auth", "none",
                "--sip", "127.0.0.1:" + clientSip, "--bootstrap", "127.0.0.1:" + seedClients)) {
            client.awaitOutput("listening", Duration.ofSeconds(60));
            String user = "viaclient" + UUID.randomUUID().toString().substring(0, 8);
            try (SipUdpClient ua = new SipUdpClient()) {
                String ok = ua.exchange(clientSip, ua.register(clientSip, user,
                        "sip:" + user + "@127.0.0.1:42000", "client-1", 1, 600));
                assertEquals(200, SipUdpClient.statusOf(ok), ok);
                String fetched = ua.exchange(sipPorts.get(1), ua.register(clientSip, user, null,
                        "client-fetch-" + UUID.randomUUID(), 1, null));
                assertEquals(List.of("sip:" + user + "@127.0.0.1:42000"), SipUdpClient.contactsOf(fetched), fetched);
            }
        }
    }

    @Test
    void sigkillOfOneNodeLosesNoAcknowledgedBindingWithTwoReplicas() throws Exception {
        int aors = 3000;
        int entry = sipPorts.get(0);
        Map<String, String> expected = new HashMap<>();
        try (SipUdpClient client = new SipUdpClient()) {
            List<Map.Entry<Integer, String>> registers = new ArrayList<>();
            for (int i = 0; i < aors; i++) {
                String user = "k" + i;
                String contact = "sip:" + user + "@127.0.0.1:" + (30000 + i);
                expected.put(user, contact);
                registers.add(Map.entry(entry, client.register(entry, user, contact, "kill-" + i, 1, 600)));
            }
            Set<String> acknowledged = new HashSet<>();
            // In bursts of 100: more at once than a fresh node admits to its DHT (128) get 503 with Retry-After.
            for (int from = 0; from < aors; from += 100) {
                Map<String, String> answers = client.exchange(registers.subList(from, Math.min(aors, from + 100)),
                        Duration.ofSeconds(30));
                answers.forEach((callId, response) -> {
                    if (SipUdpClient.statusOf(response) == 200) {
                        acknowledged.add("k" + callId.substring("kill-".length()));
                    }
                });
            }
            assertEquals(aors, acknowledged.size(), "every REGISTER is acknowledged before the kill");

            nodes.get(1).kill();

            int survivor = sipPorts.get(2);
            Set<String> missing = new HashSet<>(acknowledged);
            Instant deadline = Instant.now().plusSeconds(90);
            while (!missing.isEmpty() && Instant.now().isBefore(deadline)) {
                List<String> batch = missing.stream().limit(200).toList();
                List<Map.Entry<Integer, String>> fetches = new ArrayList<>();
                Map<String, String> userByCallId = new HashMap<>();
                for (String user : batch) {
                    String callId = "fetch-" + user + "-" + UUID.randomUUID();
                    userByCallId.put(callId, user);
                    fetches.add(Map.entry(survivor, client.register(entry, user, null, callId, 1, null)));
                }
                Map<String, String> answers = client.exchange(fetches, Duration.ofSeconds(20));
                for (Map.Entry<String, String> a : answers.entrySet()) {
                    String user = userByCallId.get(a.getKey());
                    // A 500 while the cluster repartitions is an answer to retry, not a loss.
                    if (SipUdpClient.statusOf(a.getValue()) == 200) {
                        List<String> contacts = SipUdpClient.contactsOf(a.getValue());
                        assertEquals(List.of(expected.get(user)), contacts, "binding of " + user + " after the kill");
                        missing.remove(user);
                    }
                }
            }
            assertTrue(missing.isEmpty(), missing.size() + " acknowledged AORs unreadable after the kill, e.g. "
                    + missing.stream().limit(5).toList());
        }
    }

    @Test
    void simultaneousRegistrationsOfOneAorThroughAllNodesAllSurvive() throws Exception {
        int contacts = 30;
        // Every node must name the same AOR, so the To host is fixed, not the node's own address.
        String user = "race" + UUID.randomUUID().toString().substring(0, 8);
        try (SipUdpClient client = new SipUdpClient()) {
            List<Map.Entry<Integer, String>> registers = new ArrayList<>();
            for (int i = 0; i < contacts; i++) {
                int port = sipPorts.get(i % 3);
                registers.add(Map.entry(port, client.register(sipPorts.get(0), user,
                        "sip:" + user + "@127.0.0.1:" + (40000 + i), "race-" + i, 1, 600)));
            }
            Map<String, String> answers = client.exchange(registers, Duration.ofSeconds(30));
            assertEquals(contacts, answers.size());
            answers.values().forEach(r -> assertEquals(200, SipUdpClient.statusOf(r), r));
            for (int port : sipPorts) {
                // Over TCP: over UDP an unauthenticated query's answer stays within a few times the query's size.
                String fetch = client.exchangeOverTcp(port, client.register(sipPorts.get(0), user, null,
                        "race-fetch-" + UUID.randomUUID(), 1, null));
                assertEquals(contacts, SipUdpClient.contactsOf(fetch).size(), fetch);
            }
        }
    }

    @Test
    void bindingWithExpiresTwoIsGoneFromEveryNodeShortlyAfter() throws Exception {
        String user = "brief" + UUID.randomUUID().toString().substring(0, 8);
        try (SipUdpClient client = new SipUdpClient()) {
            String ok = client.exchange(sipPorts.get(0), client.register(sipPorts.get(0), user,
                    "sip:" + user + "@127.0.0.1:41000", "brief-1", 1, 2));
            assertEquals(200, SipUdpClient.statusOf(ok), ok);
            Instant expiry = Instant.now().plusSeconds(2);
            for (int port : sipPorts) {
                assertEquals(1, SipUdpClient.contactsOf(client.exchange(port, client.register(sipPorts.get(0), user,
                        null, "brief-" + UUID.randomUUID(), 1, null))).size());
            }
            Instant deadline = expiry.plusSeconds(3);
            Set<Integer> stillListing = new HashSet<>(sipPorts);
            while (!stillListing.isEmpty() && Instant.now().isBefore(deadline)) {
                for (int port : List.copyOf(stillListing)) {
                    String fetch = client.exchange(port, client.register(sipPorts.get(0), user, null,
                            "brief-" + UUID.randomUUID(), 1, null));
                    if (SipUdpClient.contactsOf(fetch).isEmpty()) {
                        stillListing.remove(port);
                    }
                }
                TimeUnit.MILLISECONDS.sleep(100);
            }
            assertTrue(stillListing.isEmpty(), "nodes on ports " + stillListing + " still list the binding 3 s after it expired");
        }
    }
}
