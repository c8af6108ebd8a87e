package org.p2psip.balancer;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.DatagramSocket;
import java.net.InetAddress;
import java.time.Duration;
import java.util.List;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.p2psip.balancer.LbWire.StubNode;
import org.p2psip.core.net.HostPort;
import org.p2psip.core.testing.Eventually;

/**
 * A node whose process is gone is taken out at the first probe that meets
 * its closed port (ICMP port unreachable on the probe's connected socket),
 * while a node that is merely silent keeps its {@code --probe-failures}
 * intervals of grace. Real UDP sockets on 127.0.0.1.
 */
@Timeout(60)
class LbProbeRefusalIntegrationTest {

    private static final Duration INTERVAL = Duration.ofMillis(1_000);

    private SipBalancer balancer;
    private StubNode live;
    private DatagramSocket silent;

    @AfterEach
    void stop() {
        if (balancer != null) {
            balancer.close();
        }
        if (live != null) {
            live.close();
        }
        if (silent != null) {
            silent.close();
        }
    }

    @Test
    void aClosedPortIsDownAtTheFirstProbeAndASilentNodeOnlyAfterItsFailures() throws Exception {
        live = new StubNode();
        silent = new DatagramSocket(0, InetAddress.getByName("127.0.0.1"));
        int closed;
        try (DatagramSocket gone = new DatagramSocket(0, InetAddress.getByName("127.0.0.1"))) {
            closed = gone.getLocalPort();
        }
        balancer = SipBalancer.start(BalancerSettings.of(new HostPort("127.0.0.1", 0),
                List.of(live.hostPort(), new HostPort("127.0.0.1", silent.getLocalPort()),
                        new HostPort("127.0.0.1", closed)), BalancingPolicy.CALL_ID).withProbes(INTERVAL, 3));
        NodeSet nodes = balancer.nodes();

        // The first round may leave from the balancer's own socket while the connected ones open: two rounds.
        Eventually.until(() -> !nodes.isUp(2), INTERVAL.multipliedBy(2).plusMillis(500),
                "the node whose port is closed is taken out");
        assertTrue(nodes.isUp(1), "the silent node still has its three intervals");
        assertTrue(nodes.isUp(0), "the answering node is up");
        assertTrue(live.keepAlives() > 0, "its port is pinged too");

        Eventually.until(() -> !nodes.isUp(1), INTERVAL.multipliedBy(5), "the silent node is out in the end");
        assertTrue(nodes.isUp(0), "the answering node stays up");
    }

    @Test
    void aNodeThatComesBackOnTheRefusedPortIsUpAgain() throws Exception {
        int port;
        try (DatagramSocket gone = new DatagramSocket(0, InetAddress.getByName("127.0.0.1"))) {
            port = gone.getLocalPort();
        }
        balancer = SipBalancer.start(BalancerSettings.of(new HostPort("127.0.0.1", 0),
                List.of(new HostPort("127.0.0.1", port)), BalancingPolicy.CALL_ID).withProbes(INTERVAL, 3));
        NodeSet nodes = balancer.nodes();
        Eventually.until(() -> !nodes.isUp(0), INTERVAL.multipliedBy(2).plusMillis(500), "the closed port is out");

        live = new StubNode(port);
        Eventually.until(() -> nodes.isUp(0), INTERVAL.multipliedBy(3), "the node answering there again is up");
    }
}
