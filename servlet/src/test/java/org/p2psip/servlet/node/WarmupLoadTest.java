package org.p2psip.servlet.node;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.Optional;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.p2psip.core.net.HostPort;

/**
 * The warm-up's phones over UDP and TCP against a real node: every flow
 * answered, a query-only load writes nothing, and a paced load keeps to its
 * rate.
 */
class WarmupLoadTest {

    private FrontNode node;
    private InetSocketAddress target;

    @BeforeEach
    void start() throws Exception {
        node = FrontNode.start(NodeSettings.local(new HostPort("127.0.0.1", 0))
                .withTrust(TrustSettings.open("example.com")));
        target = new InetSocketAddress(node.sipAddress().host(), node.sipAddress().port());
    }

    @AfterEach
    void stop() {
        node.close();
    }

    private WarmupLoad load(int window, boolean fetchOnly, int perSecond) {
        return new WarmupLoad(target, "example.com", Optional.empty(), 50, window, fetchOnly, perSecond);
    }

    @Test
    void everyUdpFlowIsAnsweredAndRegisters() throws Exception {
        WarmupLoad.Result r = load(8, false, 0).run(200, Duration.ofSeconds(30));

        assertEquals(200, r.ok(), r.toString());
        assertEquals(50, node.storedEntries(), "one binding set per AOR");
    }

    @Test
    void aQueryOnlyLoadOverTcpIsAnsweredAndWritesNothing() throws Exception {
        WarmupLoad.Result r = load(4, true, 0).runTcp(200, Duration.ofSeconds(30));

        assertEquals(200, r.started());
        assertEquals(200, r.ok(), r.toString());
        assertEquals(0, r.lost());
        assertEquals(0, node.storedEntries());
    }

    @Test
    void aQueryOnlyLoadOverUdpWritesNothing() throws Exception {
        WarmupLoad.Result r = load(8, true, 0).run(200, Duration.ofSeconds(30));

        assertEquals(200, r.ok(), r.toString());
        assertEquals(0, node.storedEntries());
    }

    @Test
    void aPacedLoadTakesAsLongAsItsRateSays() throws Exception {
        WarmupLoad.Result r = load(8, true, 200).run(100, Duration.ofSeconds(30));

        assertEquals(100, r.ok(), r.toString());
        // 100 flows at 200/s: the last one is due 0.495 s after the first.
        assertEquals(true, r.took().toMillis() >= 450, "took " + r.took());
    }

    @Test
    void aFlowNobodyAnswersIsCountedLost() throws Exception {
        node.close();
        WarmupLoad.Result r = load(4, true, 0).run(4, Duration.ofSeconds(10));

        assertEquals(4, r.lost(), r.toString());
        assertEquals(0, r.ok());
    }
}
