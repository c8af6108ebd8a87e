package org.p2psip.servlet.node;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.p2psip.core.auth.DigestAlgorithm;
import org.p2psip.core.auth.UserCredentials;
import org.p2psip.core.dht.ManualClock;
import org.p2psip.core.location.AddressOfRecord;
import org.p2psip.core.location.RegistrarPolicy;
import org.p2psip.core.net.HostPort;
import org.p2psip.core.store.FlushPolicy;
import org.p2psip.core.testing.Eventually;
import org.p2psip.core.testing.RequestText;
import org.p2psip.core.testing.SipText;
import org.p2psip.core.testing.UdpPeer;
import org.p2psip.servlet.accounting.AccountingDatabase;
import org.p2psip.servlet.accounting.AccountingSettings;
import org.p2psip.servlet.testing.DigestAnswers;
import org.p2psip.servlet.testing.SharedLocalDhtProvider;

/**
 * Call accounting on two nodes of one cluster behind a front (a plain
 * socket standing in for the balancer they record-route through), each
 * writing to the embedded H2 database of one data directory, over real UDP
 * sockets. The nodes' clock is a manual one, so the times and durations
 * the database holds are exact.
 */
class AccountingIntegrationTest {

    static final Instant T0 = Instant.parse("2026-11-27T10:00:00.500Z");
    static final String DOMAIN = "example.com";
    static final Duration DEADLINE = Duration.ofSeconds(20);

    @TempDir
    Path dataDir;

    private final ManualClock clock = new ManualClock(T0);
    private final List<FrontNode> nodes = new ArrayList<>();
    private UdpPeer front;
    private UdpPeer caller;
    private UdpPeer callee;
    private String user;
    private String aor;

    @BeforeEach
    void peers() throws Exception {
        front = new UdpPeer();
        caller = new UdpPeer();
        callee = new UdpPeer();
        user = "bob-" + UUID.randomUUID().toString().substring(0, 6);
        aor = "sip:" + user + "@" + DOMAIN;
    }

    @AfterEach
    void stop() {
        nodes.forEach(FrontNode::close);
        front.close();
        caller.close();
        callee.close();
    }

    private FrontNode start(String store, TrustSettings trust) throws Exception {
        NodeSettings settings = new NodeSettings(new HostPort("127.0.0.1", 0), SharedLocalDhtProvider.NAME,
                Optional.empty(), List.of(), 1, Map.of("store", store), RegistrarPolicy.DEFAULT,
                NodeSettings.DEFAULT_DHT_TIMEOUT, NodeSettings.DEFAULT_SIP_THREADS, clock, trust,
                ProtectionSettings.DEFAULT, Optional.empty(), Optional.empty(), Optional.empty(), Optional.empty())
                .withAccounting(new AccountingSettings(AccountingDatabase.embedded(dataDir),
                        new FlushPolicy(1, Duration.ofMillis(20)), 10_000, true));
        FrontNode node = FrontNode.start(settings);
        nodes.add(node);
        return node;
    }

    /** Two nodes that name the front in Record-Route and share a DHT and a secret, as a cluster does. */
    private List<FrontNode> cluster() throws Exception {
        HostPort at = HostPort.parse(front.hostPort());
        TrustSettings trust = TrustSettings.open(DOMAIN).withClusterSecret("acct-test").withAliases(List.of(at))
                .withRecordRoute(at, Optional.empty());
        String store = "acct-" + UUID.randomUUID();
        return List.of(start(store, trust), start(store, trust));
    }

    private void registerCallee(FrontNode node) throws Exception {
        caller.send(RequestText.standard("REGISTER", "sip:" + DOMAIN, caller.hostPort(), aor, aor, "r-" + user, 1)
                .with("Contact: <sip:" + user + "@localhost:" + callee.port() + ">").text(), node.sipAddress());
        assertEquals(200, caller.expectResponse("REGISTER", 200).status());
    }

    private RequestText invite(String callId, long cseq) {
        return RequestText.standard("INVITE", aor, caller.hostPort(), "sip:alice@elsewhere.test", aor, callId, cseq)
                .with("Contact: <sip:alice@" + caller.hostPort() + ">");
    }

    private RequestText bye(String callId, String route, String toTag) {
        return RequestText.request("BYE", "sip:" + user + "@localhost:" + callee.port())
                .with("Via: SIP/2.0/UDP " + caller.hostPort() + ";branch=" + UdpPeer.branch())
                .with("Route: " + route)
                .with("From: <sip:alice@elsewhere.test>;tag=a1").with("To: <" + aor + ">;tag=" + toTag)
                .with("Call-ID: " + callId).with("CSeq: 2 BYE").with("Max-Forwards: 70");
    }

    private static long written(FrontNode node) {
        return node.accountingCounts().orElseThrow().written();
    }

    private static void awaitWritten(FrontNode node, long records) {
        Eventually.until(() -> written(node) >= records, DEADLINE,
                () -> records + " records written by " + node.sipAddress() + " (" + node.accountingCounts() + ")");
    }

    private Connection database() throws SQLException {
        return DriverManager.getConnection(AccountingDatabase.embedded(dataDir).url());
    }

    /** Every row of acc_calls by Call-ID, times as instants. */
    private Map<String, Map<String, Object>> calls() throws SQLException {
        Map<String, Map<String, Object>> rows = new LinkedHashMap<>();
        try (Connection c = database(); Statement s = c.createStatement();
             ResultSet r = s.executeQuery("SELECT * FROM acc_calls ORDER BY call_id")) {
            while (r.next()) {
                Map<String, Object> row = new LinkedHashMap<>();
                for (String column : List.of("caller", "callee", "started_at", "answered_at", "ended_at",
                        "duration_ms", "status", "invite_node", "bye_node")) {
                    Object v = column.endsWith("_at") ? r.getObject(column, OffsetDateTime.class) : r.getObject(column);
                    row.put(column, v instanceof OffsetDateTime t ? t.toInstant() : v instanceof Number n
                            ? (Object) n.longValue() : v);
                }
                rows.put(r.getString("call_id"), row);
            }
        }
        return rows;
    }

    @Test
    void aCallSetUpThroughOneNodeAndHungUpThroughAnotherIsOneRowWithItsDuration() throws Exception {
        List<FrontNode> cluster = cluster();
        FrontNode node1 = cluster.get(0);
        FrontNode node2 = cluster.get(1);
        registerCallee(node1);
        String callId = "call-" + user;

        caller.send(invite(callId, 1).text(), node1.sipAddress());
        SipText invite = callee.expectRequest("INVITE");
        String recordRoute = invite.headers("record-route").get(0);
        clock.advance(Duration.ofMillis(2_250));
        callee.send(invite.response(200, "OK", "b1", "Contact: <sip:" + user + "@localhost:" + callee.port() + ">",
                "Record-Route: " + recordRoute), node1.sipAddress());
        assertEquals(200, caller.expectResponse("INVITE", 200).status());
        awaitWritten(node1, 2);

        clock.advance(Duration.ofSeconds(60));
        caller.send(bye(callId, recordRoute, "b1").text(), node2.sipAddress());
        callee.send(callee.expectRequest("BYE").response(200, "OK", null), node2.sipAddress());
        assertEquals(200, caller.expectResponse("BYE", 200).status());
        awaitWritten(node2, 1);

        Map<String, Map<String, Object>> rows = calls();
        assertEquals(List.of(callId), List.copyOf(rows.keySet()), rows.toString());
        Map<String, Object> row = rows.get(callId);
        assertEquals("sip:alice@elsewhere.test", row.get("caller"));
        assertEquals(aor, row.get("callee"));
        assertEquals(T0, row.get("started_at"));
        assertEquals(T0.plusMillis(2_250), row.get("answered_at"));
        assertEquals(T0.plusMillis(62_250), row.get("ended_at"));
        assertEquals(60_000L, row.get("duration_ms"));
        assertEquals(200L, row.get("status"));
        assertEquals(node1.sipAddress().toString(), row.get("invite_node"));
        assertEquals(node2.sipAddress().toString(), row.get("bye_node"));

        try (Connection c = database(); Statement s = c.createStatement();
             ResultSet r = s.executeQuery("SELECT aor, contact, change, expires, node FROM acc_registrations")) {
            assertTrue(r.next(), "the callee's registration was accounted");
            assertEquals(aor, r.getString(1));
            assertEquals("sip:" + user + "@localhost:" + callee.port(), r.getString(2));
            assertEquals("added", r.getString(3));
            assertEquals(RegistrarPolicy.DEFAULT.defaultExpires(), r.getLong(4));
            assertEquals(node1.sipAddress().toString(), r.getString(5));
        }
    }

    @Test
    void aCallToNobodyAndACancelledCallAreAttemptsWithoutDuration() throws Exception {
        FrontNode node = cluster().get(0);
        registerCallee(node);

        caller.send(invite("nobody-" + user, 1).text().replace(aor, "sip:nobody@" + DOMAIN), node.sipAddress());
        assertEquals(404, caller.expectResponse("INVITE", 404).status());

        String cancelled = "cancelled-" + user;
        RequestText invite = invite(cancelled, 1);
        caller.send(invite.text(), node.sipAddress());
        SipText arrived = callee.expectRequest("INVITE");
        callee.send(arrived.response(180, "Ringing", "b2"), node.sipAddress());
        caller.expectResponse("INVITE", 180);
        clock.advance(Duration.ofSeconds(7));
        caller.send(invite.text().replaceFirst("INVITE ", "CANCEL ").replace("CSeq: 1 INVITE", "CSeq: 1 CANCEL")
                .replaceAll("(?m)^Contact:.*\\r\\n", ""), node.sipAddress());
        SipText cancel = callee.expectRequest("CANCEL");
        callee.send(cancel.response(200, "OK", "b2"), node.sipAddress());
        callee.send(arrived.response(487, "Request Terminated", "b2"), node.sipAddress());
        assertEquals(487, caller.expectResponse("INVITE", 487).status());
        awaitWritten(node, 3);

        Map<String, Map<String, Object>> rows = calls();
        Map<String, Object> notFound = rows.get("nobody-" + user);
        assertEquals(404L, notFound.get("status"), rows.toString());
        assertEquals(T0, notFound.get("ended_at"));
        assertNull(notFound.get("answered_at"));
        assertNull(notFound.get("duration_ms"));
        Map<String, Object> gaveUp = rows.get(cancelled);
        assertEquals(487L, gaveUp.get("status"), rows.toString());
        assertEquals(T0, gaveUp.get("started_at"));
        assertEquals(T0.plusSeconds(7), gaveUp.get("ended_at"));
        assertNull(gaveUp.get("answered_at"));
        assertNull(gaveUp.get("duration_ms"));
    }

    @Test
    void aReInviteAndAByeOutsideTheClustersDialogsWriteNothing() throws Exception {
        List<FrontNode> cluster = cluster();
        FrontNode node1 = cluster.get(0);
        FrontNode node2 = cluster.get(1);
        registerCallee(node1);
        String callId = "held-" + user;
        caller.send(invite(callId, 1).text(), node1.sipAddress());
        SipText invite = callee.expectRequest("INVITE");
        String recordRoute = invite.headers("record-route").get(0);
        callee.send(invite.response(200, "OK", "b3", "Contact: <sip:" + user + "@localhost:" + callee.port() + ">",
                "Record-Route: " + recordRoute), node1.sipAddress());
        caller.expectResponse("INVITE", 200);
        awaitWritten(node1, 2);
        Map<String, Object> before = calls().get(callId);

        clock.advance(Duration.ofSeconds(30));
        caller.send(RequestText.request("INVITE", "sip:" + user + "@localhost:" + callee.port())
                .with("Via: SIP/2.0/UDP " + caller.hostPort() + ";branch=" + UdpPeer.branch())
                .with("Route: " + recordRoute)
                .with("From: <sip:alice@elsewhere.test>;tag=a1").with("To: <" + aor + ">;tag=b3")
                .with("Call-ID: " + callId).with("CSeq: 3 INVITE").with("Max-Forwards: 70")
                .with("Contact: <sip:alice@" + caller.hostPort() + ">").text(), node2.sipAddress());
        SipText reInvite = callee.expectRequest("INVITE");
        callee.send(reInvite.response(200, "OK", null, "Contact: <sip:" + user + "@localhost:" + callee.port() + ">"),
                node2.sipAddress());
        caller.expectResponse("INVITE", 200);
        // A BYE whose Route carries no token of this cluster for its Call-ID, as a stranger would send.
        String forged = "forged-" + user;
        caller.send(bye(forged, "<sip:" + front.hostPort() + ";lr>", "x9").text(), node2.sipAddress());
        caller.expect(m -> m.isResponse() && m.status() >= 200 && m.header("call-id").orElse("").equals(forged),
                "an answer to the BYE from outside");

        // Records of one node are written in order: once this BYE's is, the two above were if they were made.
        caller.send(bye(callId, recordRoute, "b3").text(), node2.sipAddress());
        callee.send(callee.expectRequest("BYE").response(200, "OK", null), node2.sipAddress());
        awaitWritten(node2, 1);

        Map<String, Map<String, Object>> rows = calls();
        assertEquals(List.of(callId), List.copyOf(rows.keySet()), rows.toString());
        Map<String, Object> row = rows.get(callId);
        assertEquals(before.get("started_at"), row.get("started_at"));
        assertEquals(before.get("answered_at"), row.get("answered_at"));
        assertEquals(T0.plusSeconds(30), row.get("ended_at"));
        assertEquals(1L, written(node2));
    }

    @Test
    void aChallengedInviteIsNoCallOfItsOwnButTheAnsweredRetryIs() throws Exception {
        TrustSettings trust = TrustSettings.DEFAULT.withDomains(List.of(DOMAIN)).withClusterSecret("acct-auth");
        FrontNode node = start("acct-auth-" + UUID.randomUUID(), trust);
        String alice = "alice-" + user;
        String aliceUri = "sip:" + alice + "@" + DOMAIN;
        node.credentials().put(UserCredentials.fromPassword(AddressOfRecord.parse(aliceUri), "wonderland")).join();
        node.credentials().put(UserCredentials.fromPassword(AddressOfRecord.parse(aor), "builder")).join();
        String regCall = "reg-" + user;
        RequestText register = RequestText.standard("REGISTER", "sip:" + DOMAIN, callee.hostPort(), aor, aor, regCall, 1)
                .with("Contact: <sip:" + user + "@localhost:" + callee.port() + ">");
        callee.send(register.text(), node.sipAddress());
        SipText unauthorized = callee.expectResponse("REGISTER", 401);
        callee.send(RequestText.standard("REGISTER", "sip:" + DOMAIN, callee.hostPort(), aor, aor, regCall, 2)
                .with("Contact: <sip:" + user + "@localhost:" + callee.port() + ">")
                .with("Authorization: " + DigestAnswers.answer(DigestAnswers.challengeFor(unauthorized,
                        DigestAlgorithm.SHA_256), user, "builder", "REGISTER", "sip:" + DOMAIN, 1)).text(),
                node.sipAddress());
        callee.expectResponse("REGISTER", 200);

        String callId = "auth-" + user;
        caller.send(RequestText.standard("INVITE", aor, caller.hostPort(), aliceUri, aor, callId, 1)
                .with("Contact: <sip:" + alice + "@" + caller.hostPort() + ">").text(), node.sipAddress());
        SipText challenge = caller.expectResponse("INVITE", 407);
        clock.advance(Duration.ofSeconds(5));
        caller.send(RequestText.standard("INVITE", aor, caller.hostPort(), aliceUri, aor, callId, 2)
                .with("Contact: <sip:" + alice + "@" + caller.hostPort() + ">")
                .with("Proxy-Authorization: " + DigestAnswers.answer(DigestAnswers.challengeFor(challenge,
                        DigestAlgorithm.SHA_256), alice, "wonderland", "INVITE", aor, 1)).text(), node.sipAddress());
        SipText invite = callee.expectRequest("INVITE");
        clock.advance(Duration.ofSeconds(1));
        callee.send(invite.response(200, "OK", "b4", "Contact: <sip:" + user + "@localhost:" + callee.port() + ">"),
                node.sipAddress());
        caller.expectResponse("INVITE", 200);
        // The registration (added) and the answered call; the challenged INVITE made none.
        awaitWritten(node, 2);

        Map<String, Object> row = calls().get(callId);
        assertEquals(200L, row.get("status"), row.toString());
        assertEquals(T0.plusSeconds(5), row.get("started_at"), "the call started with the INVITE that was let through");
        assertEquals(T0.plusSeconds(6), row.get("answered_at"));
        assertNull(row.get("ended_at"), "a call still going has no end: " + row);
        assertEquals(2, written(node));
    }
}
