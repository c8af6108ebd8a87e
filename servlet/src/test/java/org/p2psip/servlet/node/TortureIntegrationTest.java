package org.p2psip.servlet.node;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.io.IOException;
import java.net.URISyntaxException;
import java.net.URL;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.stream.Stream;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.TestFactory;
import org.p2psip.core.location.AddressOfRecord;
import org.p2psip.core.net.HostPort;
import org.p2psip.core.testing.RequestText;
import org.p2psip.core.testing.SipText;
import org.p2psip.core.testing.UdpPeer;

/**
 * Every RFC 4475 torture message, sent as one UDP datagram to a running
 * node (the messages are test resources under {@code sip-torture/}; what a
 * registrar/proxy should do with each is the table this class's constants
 * and notes follow).
 *
 * <p>Each message gets a fresh node: many of the messages share the branch
 * {@code z9hG4bKkdjuw}, and JAIN-SIP keys server transactions by branch
 * alone, so back to back on one node the later ones would be taken for
 * retransmissions of the earlier ones and absorbed (a collision no real
 * client produces, RFC 3261 §8.1.1.7 makes branches unique).
 *
 * <p>Where JAIN-SIP's parser decides for us, the outcome is documented
 * here rather than asserted as the README's ideal (the test still checks
 * that the node answers OPTIONS afterwards):
 * <ul>
 *   <li>badaspec, baddn, multi01, mcl01, lwsstart, trws: the RI's parser
 *       tolerates these (first value of a repeated header wins, extra
 *       spaces are dropped, unquoted display names pass), so they are
 *       handled as valid requests for an unknown user: 404. Nothing
 *       malformed is forwarded.</li>
 *   <li>esc02, intmeth: unknown methods are proxied by Request-URI: 404.</li>
 *   <li>escruri: 404 for the unknown user, so the {@code ?Route=} is never
 *       forwarded.</li>
 *   <li>wsinv: valid, and its Route names services.example.com, which does
 *       not resolve here: the branch fails as 503, answered upstream as 500.</li>
 *   <li>mpart01: routed by its Route to 127.0.0.1:5080, where nothing
 *       listens, so no final answer arrives before the client transaction
 *       times out (408 after 32 s).</li>
 *   <li>test.dat (no SIP version on the Request-Line): dropped and counted.</li>
 * </ul>
 */
class TortureIntegrationTest {

    private static final Path DIR = resource("/sip-torture/rfc4475");

    /** Status the node must answer with; 0 means it must stay silent. */
    private static final Map<String, Integer> REQUIRED = Map.ofEntries(
            Map.entry("badvers", 505),
            Map.entry("zeromf", 483),
            Map.entry("unkscm", 416),
            Map.entry("novelsc", 416),
            Map.entry("unksm2", 400),
            Map.entry("insuf", 400),
            Map.entry("scalar02", 400),
            Map.entry("regbadct", 400),
            Map.entry("bext01", 420),
            Map.entry("badinv01", 400),
            Map.entry("quotbal", 400),
            Map.entry("ltgtruri", 400),
            Map.entry("lwsruri", 400),
            Map.entry("mismatch01", 400),
            Map.entry("mismatch02", 400),
            Map.entry("ncl", 400),
            Map.entry("clerr", 400),
            Map.entry("escnull", 200),
            Map.entry("cparam01", 200),
            Map.entry("cparam02", 200),
            Map.entry("regescrt", 200),
            Map.entry("regaut01", 200),
            Map.entry("dblreq", 200),
            Map.entry("unreason", 0),
            Map.entry("noreason", 0),
            Map.entry("scalarlg", 0),
            Map.entry("bigcode", 0),
            Map.entry("bcast", 0));

    /** Invalid REGISTERs and the AOR they must not have written. */
    private static final Map<String, String> WRITES_NOTHING = Map.of(
            "scalar02", "sip:user@example.com",
            "regbadct", "sip:user@example.com");

    /** Responses whose status line cannot be parsed: nobody to answer, so they are dropped and counted. */
    private static final Set<String> COUNTED_DROPS = Set.of("scalarlg", "bigcode");

    /** Closing a node takes the RI a second; nodes close in the background and are awaited at the end. */
    private static final ExecutorService CLOSER = Executors.newCachedThreadPool();
    private static final List<Future<?>> CLOSING = new CopyOnWriteArrayList<>();

    @AfterAll
    static void closeNodes() throws Exception {
        for (Future<?> f : CLOSING) {
            f.get();
        }
        CLOSER.shutdown();
    }

    @TestFactory
    Stream<DynamicTest> everyTortureMessageIsAnsweredOrDroppedAndTheNodeSurvives() throws IOException {
        List<Path> files = new ArrayList<>();
        try (Stream<Path> s = Files.list(DIR)) {
            s.filter(p -> p.toString().endsWith(".dat")).sorted().forEach(files::add);
        }
        return files.stream().map(f -> DynamicTest.dynamicTest(name(f), () -> check(f)));
    }

    private static Path resource(String name) {
        URL url = Objects.requireNonNull(TortureIntegrationTest.class.getResource(name),
                "test resource " + name + " is missing");
        try {
            return Path.of(url.toURI());
        } catch (URISyntaxException e) {
            throw new IllegalStateException("test resource " + name + " has no file path", e);
        }
    }

    private static String name(Path f) {
        String n = f.getFileName().toString();
        return n.substring(0, n.length() - 4);
    }

    private void check(Path file) throws Exception {
        String name = name(file);
        byte[] bytes = Files.readAllBytes(file);
        FrontNode node = FrontNode.start(NodeSettings.local(new HostPort("127.0.0.1", 0))
                .withTrust(TrustSettings.open("example.com")));
        try (UdpPeer peer = new UdpPeer()) {
            peer.sendBytes(bytes, node.sipAddress());
            Integer required = REQUIRED.get(name);
            if (required != null && required == 0) {
                Optional<SipText> any = peer.await(m -> true, Duration.ofMillis(300));
                assertTrue(any.isEmpty(), name + " must not be answered, got " + any.map(SipText::firstLine));
            } else if (required != null) {
                SipText r = peer.expect(m -> m.isResponse() && m.status() >= 200, "final response to " + name);
                assertEquals(required.intValue(), r.status(), name + ": " + r.firstLine());
                assertTrue(!r.reason().contains("\n") && !r.reason().contains("[C@"), r.reason());
                if (name.equals("bext01")) {
                    assertTrue(!r.headers("unsupported").isEmpty(), "420 lists Unsupported");
                }
            } else {
                peer.await(m -> m.isResponse() && m.status() >= 200, Duration.ofMillis(500));
            }
            String aor = WRITES_NOTHING.get(name);
            if (aor != null) {
                assertTrue(node.locationService().lookup(AddressOfRecord.parse(aor)).join().isEmpty(),
                        name + " wrote a binding");
            }
            if (COUNTED_DROPS.contains(name)) {
                assertEquals(1, node.droppedMessages(), name + " is counted as dropped");
            }
            if (required != null && required > 0) {
                assertEquals(0, node.droppedMessages(), name + " was answered, not dropped");
            }
            assertStillAnswersOptions(node, peer, name);
        } finally {
            CLOSING.add(CLOSER.submit(node::close));
        }
    }

    private static void assertStillAnswersOptions(FrontNode node, UdpPeer peer, String after) throws Exception {
        String self = "sip:" + node.sipAddress();
        String callId = "alive-" + UUID.randomUUID();
        peer.send(RequestText.standard("OPTIONS", self, peer.hostPort(), "sip:probe@example.com", self, callId, 1)
                .text(), node.sipAddress());
        Optional<SipText> ok = peer.await(m -> m.isResponse() && m.header("call-id").orElse("").equals(callId),
                Duration.ofSeconds(5));
        if (ok.isEmpty() || ok.get().status() != 200) {
            fail("node stopped answering OPTIONS after " + after + ": " + ok.map(SipText::firstLine));
        }
    }
}
