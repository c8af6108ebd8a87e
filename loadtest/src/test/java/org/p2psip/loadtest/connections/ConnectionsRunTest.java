package org.p2psip.loadtest.connections;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;
import org.p2psip.loadtest.process.TargetSample;

/** The run against a real TCP server on loopback that closes connections the way a node would. */
class ConnectionsRunTest {

    private static ConnectionsSpec spec(InetSocketAddress target, String sources, int count, boolean slowloris,
                                        long watchMillis, long refusedWithinMillis, String probe) {
        return new ConnectionsSpec(target, SourceAddresses.parse(sources), count, 500, slowloris, watchMillis, 2_000,
                refusedWithinMillis, probe == null ? null : SourceAddresses.parse(probe).get(0), 0, 0, "example.com");
    }

    @Test
    void connectionsTheTargetClosesLaterAreCountedWithTheTimeTheyLived() throws Exception {
        try (ClosingServer server = new ClosingServer(400, 0)) {
            long t0 = System.nanoTime();
            ConnectionsReport r = new ConnectionsRun(
                    spec(server.address(), "127.0.0.10-127.0.0.13", 20, false, 5_000, 100, null),
                    () -> TargetSample.NONE, null).run();
            double seconds = (System.nanoTime() - t0) / 1e9;

            assertEquals(20, r.attempted());
            assertEquals(20, r.opened());
            assertEquals(0, r.failed());
            assertEquals(0, r.refused());
            assertEquals(20, r.closed());
            assertEquals(0, r.stillOpen());
            assertTrue(r.closeMillis()[0] >= 350, "closed too early: " + r.closeMillis()[0]);
            assertTrue(r.closeQuantileMillis(1.0) < 2_000, "closed too late: " + r.closeQuantileMillis(1.0));
            assertTrue(r.closeQuantileMillis(0.5) >= 350 && r.closeQuantileMillis(0.9) < 2_000);
            assertTrue(seconds < 3, "the watch should end once all are closed, took " + seconds + " s");
            // Round-robin over the four sources, each socket bound to its own.
            Map<InetAddress, Integer> bySource = server.acceptedBySource();
            assertEquals(4, bySource.size(), bySource.toString());
            bySource.forEach((a, n) -> assertEquals(5, n, a + " " + bySource));
            assertTrue(r.text().contains("closed:     20 by the target later"), r.text());
        }
    }

    @Test
    void aPerSourceCapShowsAsRefusalsWhileAnotherSourceIsStillAccepted() throws Exception {
        try (ClosingServer server = new ClosingServer(0, 3)) {
            ConnectionsReport r = new ConnectionsRun(
                    spec(server.address(), "127.0.0.20", 5, false, 1_000, 300, "127.0.0.21"),
                    () -> TargetSample.NONE, null).run();

            assertEquals(5, r.opened());
            assertEquals(2, r.refused());
            assertEquals(4, r.firstRefused());
            assertEquals("127.0.0.20", r.firstRefusedSource());
            assertEquals(0, r.closed());
            assertEquals(3, r.stillOpen());
            assertEquals(ConnectionsReport.Probe.ACCEPTED, r.probe());
            assertTrue(r.refusedMaxMillis() >= 0 && r.refusedMaxMillis() < 300);
            assertTrue(r.text().contains("refused:    2 closed by the target within 300 ms of opening "
                    + "(first: #4 from 127.0.0.20; the slowest closed "), r.text());
            assertTrue(r.text().contains("probe:      accepted"), r.text());
        }
    }

    @Test
    void slowlorisSendsHeadersPromisingMoreBodyThanFollows() throws Exception {
        try (ClosingServer server = new ClosingServer(300, 0)) {
            ConnectionsReport r = new ConnectionsRun(
                    spec(server.address(), "127.0.0.30,127.0.0.31", 3, true, 5_000, 100, null),
                    () -> TargetSample.NONE, null).run();

            assertEquals(3, r.closed());
            List<String> got = server.received();
            assertEquals(3, got.size());
            for (String text : got) {
                assertTrue(text.startsWith("OPTIONS sip:127.0.0.1:" + server.address().getPort() + " SIP/2.0\r\n"),
                        text);
                assertTrue(text.contains("\r\nContent-Length: 1000\r\n\r\n"), text);
                String body = text.substring(text.indexOf("\r\n\r\n") + 4);
                assertTrue(body.length() > 0 && body.length() < 1000, body);
            }
        }
    }

    @Test
    void connectionsNobodyAcceptsFailToOpen() throws Exception {
        InetSocketAddress closed;
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            closed = (InetSocketAddress) s.getLocalSocketAddress();
        }
        ConnectionsReport r = new ConnectionsRun(spec(closed, "127.0.0.10", 3, false, 1_000, 100, null),
                () -> TargetSample.NONE, null).run();

        assertEquals(0, r.opened());
        assertEquals(3, r.failed());
        assertEquals(3, r.failures().values().stream().mapToInt(Integer::intValue).sum());
        assertTrue(r.failures().keySet().stream().anyMatch(k -> k.contains("refused")), r.failures().toString());
        assertTrue(r.text().contains("failed:     3 to open"), r.text());
    }

    @Test
    void theTargetsMemoryIsSampledBeforeWithAllOpenAndAfter() throws IOException {
        long pid = ProcessHandle.current().pid();
        try (ClosingServer server = new ClosingServer(0, 0)) {
            ConnectionsReport r = new ConnectionsRun(spec(server.address(), "127.0.0.10", 2, false, 1_000, 100, null),
                    () -> TargetSample.of(pid), null).run();
            r = ConnectionsRun.withAfter(r, TargetSample.of(pid));

            assertEquals(2, r.stillOpen());
            assertEquals(2, r.openAtSample());
            assertTrue(r.before().rssKb() > 0 && r.allOpen().rssKb() > 0 && r.after().rssKb() > 0);
            assertTrue(r.allOpen().threads() > 0);
            assertTrue(r.text().contains("kB with 2 open"), r.text());
        }
    }
}
