package org.p2psip.dht.chord;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.math.BigInteger;
import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;
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
 * range once, and the last page says so; asked for the changes since a
 * page's change mark, the node answers with what was written and removed
 * after it.
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
            byte[] answer = ask(node, requester, after, OptionalLong.empty());
            assertTrue(answer.length < KeyMover.FRAME_BYTES + 16_384, "a page of " + answer.length + " bytes");
            ChordWire.In in = new ChordWire.In(answer);
            assertTrue(in.flag(), "a node alone holds every key whole");
            in.node();
            assertTrue(in.flag(), "a whole copy is always told");
            in.entries().forEach(e -> got.add(e.key()));
            assertTrue(in.removals().isEmpty(), "a whole copy carries no removals");
            after = in.optionalText();
            more = after.isPresent();
            pages++;
        } while (more && pages < 100);
        assertEquals(List.copyOf(written), got);
        assertTrue(pages >= 4, "1.2 MB came in " + pages + " pages");
    }

    /** Asks {@code node} for one page of every key it holds, as a take-over (not a copy ahead). */
    private static byte[] ask(ChordDht node, NodeRef requester, Optional<String> after, OptionalLong since)
            throws Exception {
        BigInteger everywhere = node.node().id();
        ChordWire.Out ask = new ChordWire.Out().node(requester).id(everywhere).id(everywhere).optionalText(after)
                .flag(false).optionalNum(since);
        return node.handle(ChordWire.FETCH_PAGE, ask.bytes()).get(10, TimeUnit.SECONDS);
    }

    @Test
    void theChangesSinceAPagesMarkComeWithTheRemovals() throws Exception {
        ring = new LoopbackRing(1, Clock.systemUTC()).start(1);
        ChordDht node = ring.nodes().get(0);
        Instant expiry = Instant.now().plusSeconds(3600);
        for (String key : List.of("kept", "changed", "removed")) {
            assertTrue(node.putIfVersion(key, Dht.ABSENT, new byte[] {1}, expiry).get(10, TimeUnit.SECONDS), key);
        }
        NodeRef requester = new NodeRef(BigInteger.ONE, new HostPort("127.0.0.1", 9));
        ChordWire.In first = new ChordWire.In(ask(node, requester, Optional.empty(), OptionalLong.empty()));
        first.flag();
        first.node();
        first.flag();
        assertEquals(3, first.entries().size());
        first.removals();
        first.optionalText();
        long mark = first.num();

        long changed = node.get("changed").get(10, TimeUnit.SECONDS).orElseThrow().version();
        assertTrue(node.putIfVersion("changed", changed, new byte[] {2}, expiry).get(10, TimeUnit.SECONDS));
        long removed = node.get("removed").get(10, TimeUnit.SECONDS).orElseThrow().version();
        assertTrue(node.removeIfVersion("removed", removed).get(10, TimeUnit.SECONDS));

        ChordWire.In since = new ChordWire.In(ask(node, requester, Optional.empty(), OptionalLong.of(mark)));
        since.flag();
        since.node();
        assertTrue(since.flag(), "the node keeps the removal, so it can tell what changed");
        List<StoredEntry> entries = since.entries();
        assertEquals(List.of("changed"), entries.stream().map(StoredEntry::key).toList());
        assertEquals(2, entries.get(0).value()[0]);
        assertEquals(List.of(new KeyStore.Removal("removed", removed)), since.removals());
        assertEquals(Optional.empty(), since.optionalText());
        assertTrue(since.num() > mark, "the mark moved on with the two changes");
    }
}
