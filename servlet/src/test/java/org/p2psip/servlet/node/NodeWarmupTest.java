package org.p2psip.servlet.node;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.p2psip.core.auth.DigestAlgorithm;
import org.p2psip.core.net.HostPort;

/**
 * The warm-up runs real REGISTER flows and calls through a node's SIP stack —
 * digest challenges answered where the node authenticates — and leaves the node it
 * warms without a binding or a user of its own.
 */
class NodeWarmupTest {

    private FrontNode node;

    @AfterEach
    void stop() {
        if (node != null) {
            node.close();
        }
    }

    @Test
    void everyFlowThroughAnOpenNodeIsAnswered200() {
        NodeSettings real = NodeSettings.local(new HostPort("127.0.0.1", 0))
                .withTrust(TrustSettings.open("example.com"));

        NodeWarmup.Report r = NodeWarmup.run(real, 600);

        assertEquals(600, r.flows());
        assertEquals(600, r.ok(), r.describe());
        assertEquals(600 / NodeWarmup.CALL_SHARE, r.calls());
        assertEquals(r.calls(), r.callsOk(), r.describe());
    }

    @Test
    void everyFlowThroughAnAuthenticatingNodeAnswersItsChallengeAndIsAnswered200() {
        NodeSettings real = NodeSettings.local(new HostPort("127.0.0.1", 0))
                .withTrust(TrustSettings.DEFAULT.withAlgorithms(List.of(DigestAlgorithm.SHA_256,
                        DigestAlgorithm.MD5)));

        NodeWarmup.Report r = NodeWarmup.run(real, 600);

        assertEquals(600, r.flows());
        assertEquals(600, r.ok(), r.describe());
        assertEquals(600 / NodeWarmup.CALL_SHARE, r.callsOk(), r.describe());
    }

    @Test
    void noFlowsMeansNoWarmUp() {
        NodeWarmup.Report r = NodeWarmup.run(NodeSettings.local(new HostPort("127.0.0.1", 0)), 0);

        assertEquals(0, r.flows());
    }

    @Test
    void theOverlayStageLeavesNoBindingBehind() throws Exception {
        node = FrontNode.start(NodeSettings.local(new HostPort("127.0.0.1", 0))
                .withTrust(TrustSettings.open("example.com")));

        NodeWarmup.Report r = NodeWarmup.overlay(node, 300, NodeWarmup.BUDGET);

        assertEquals(300, r.flows());
        assertEquals(300, r.ok(), r.describe());
        assertEquals(0, r.lost());
        assertEquals(0, node.storedEntries(), "every warm-up binding was removed");
        assertTrue(node.credentials().list().get().isEmpty(), "the warm-up adds no user");
    }
}
