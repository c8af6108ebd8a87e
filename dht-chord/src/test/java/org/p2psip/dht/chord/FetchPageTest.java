package org.p2psip.dht.chord;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.math.BigInteger;
import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.p2psip.core.dht.Dht;
import org.p2psip.core.net.HostPort;

/**
 * A range fetch over the wire format, page by page, against a real node:
 * every page stays within the frame bound, the marks lead through the whole
 * range once, and the last page says so.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class FetchPageTest {

    private LoopbackRing ring;

    @AfterEach
    void stop() {
        if (ring != null) {
            ring.close();
        }
    }

    @Test
    void aRangeLargerThanAFrameComesInBoundedPagesThatCoverItOnce() throws Exception {
        ring = new LoopbackRing(1, Clock.systemUTC()).start(1);
        ChordDht node = ring.nodes().get(0);
        Instant expiry = Instant.now().plusSeconds(3600);
        TreeSet<String> written = new TreeSet<>();
        for (int i = 0; i < 300; i++) {
            String key = "paged-" + i;
            assertTrue(node.putIfVersion(key, Dht.ABSENT, new byte[4096], expiry).get(10, TimeUnit.SECONDS), key);
            written.add(key);
        }
        NodeRef requester = new NodeRef(BigInteger.ONE, new HostPort("127.0.0.1", 9));
        BigInteger everywhere = node.node().id();
        List<String> got = new ArrayList<>();
        Optional<String> after = Optional.empty();
        int pages = 0;
        boolean more;
        do {
            ChordWire.Out ask = new ChordWire.Out().node(requester).id(everywhere).id(everywhere)
                    .optionalText(after);
            byte[] answer = node.handle(ChordWire.FETCH_PAGE, ask.bytes()).get(10, TimeUnit.SECONDS);
            assertTrue(answer.length < KeyMover.FRAME_BYTES + 16_384, "a page of " + answer.length + " bytes");
            ChordWire.In in = new ChordWire.In(answer);
            assertTrue(in.flag(), "a node alone holds every key whole");
            in.node();
            in.entries().forEach(e -> got.add(e.key()));
            after = in.optionalText();
            more = after.isPresent();
            pages++;
        } while (more && pages < 100);
        assertEquals(List.copyOf(written), got);
        assertTrue(pages >= 4, "1.2 MB came in " + pages + " pages");
    }
}
