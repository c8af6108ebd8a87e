package org.p2psip.servlet.node;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.p2psip.core.auth.UserCredentials;
import org.p2psip.core.location.AddressOfRecord;
import org.p2psip.core.net.HostPort;

/**
 * The warm-up's calls cross a real node's proxy: the callee registers at
 * the caller's socket, and each call's INVITE, ACK and BYE go through the
 * node and back, the BYE answered 200.
 */
class WarmupCallsTest {

    private FrontNode node;

    @AfterEach
    void stop() {
        if (node != null) {
            node.close();
        }
    }

    @Test
    void everyCallThroughAnOpenNodeIsHungUpWith200() throws Exception {
        node = FrontNode.start(NodeSettings.local(new HostPort("127.0.0.1", 0))
                .withTrust(TrustSettings.open("example.com")));

        WarmupCalls.Result r = calls("example.com", Optional.empty()).run(150, Duration.ofSeconds(20), () -> true);

        assertEquals(150, r.started());
        assertEquals(150, r.ok(), r.toString());
        assertEquals(0, r.lost());
    }

    @Test
    void aCalleeTheNodeChallengesAnswersWithItsPasswordAndTakesEveryCall() throws Exception {
        node = FrontNode.start(NodeSettings.local(new HostPort("127.0.0.1", 0)));
        String domain = node.servedDomains().domains().get(0);
        node.credentials().putAll(List.of(UserCredentials.fromPassword(
                new AddressOfRecord("callee", domain, OptionalInt.empty()), "pw"))).get(10, TimeUnit.SECONDS);

        WarmupCalls.Result r = calls(domain, Optional.of("pw")).run(60, Duration.ofSeconds(20), () -> true);

        assertEquals(60, r.ok(), r.toString());
    }

    @Test
    void aCalleeTheNodeDoesNotRegisterMeansNoCalls() throws Exception {
        node = FrontNode.start(NodeSettings.local(new HostPort("127.0.0.1", 0)));
        String domain = node.servedDomains().domains().get(0);

        WarmupCalls.Result r = calls(domain, Optional.of("not provisioned")).run(60, Duration.ofSeconds(20),
                () -> true);

        assertEquals(0, r.started());
    }

    @Test
    void theRouteSetIsTheRecordRouteValuesReversed() {
        String ok = "SIP/2.0 200 OK\r\nRecord-Route: <sip:a.test;lr>, <sip:b.test;lr;x=\"1,2\">\r\n"
                + "Via: SIP/2.0/UDP h:1\r\nRecord-Route: <sip:c.test;lr>\r\n\r\n";

        assertEquals(List.of("<sip:c.test;lr>", "<sip:b.test;lr;x=\"1,2\">", "<sip:a.test;lr>"),
                WarmupCalls.routeSet(ok));
    }

    private WarmupCalls calls(String domain, Optional<String> password) {
        HostPort at = node.sipAddress();
        return new WarmupCalls(new InetSocketAddress(at.host(), at.port()), domain, "callee", password, 8);
    }
}
