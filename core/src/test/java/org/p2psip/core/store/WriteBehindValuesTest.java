package org.p2psip.core.store;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.p2psip.core.testing.Eventually;

/** A real MVStore file in a temporary directory; time for expiry from a clock moved by hand. */
@Timeout(60)
class WriteBehindValuesTest {

    private static final long NOW = 1_800_000_000_000L;

    @TempDir
    Path dir;

    private final AtomicLong wall = new AtomicLong(NOW);

    private DataDir data(int count, Duration interval) {
        return new DataDir(dir, new FlushPolicy(count, interval));
    }

    private static HeldValue value(String key, String text, long version, long expiresAt) {
        return new HeldValue(key, text.getBytes(), version, expiresAt);
    }

    @Test
    void whatWasWrittenIsReadBackAtTheNextOpenAndTheExpiredIsNot() throws Exception {
        try (WriteBehindValues v = WriteBehindValues.open(data(100, Duration.ofSeconds(1)), "chord", wall::get)) {
            assertEquals(List.of(), v.recovered());
            v.stored(value("alice", "a1", 7, NOW + 60_000));
            v.stored(value("bob", "b1", 8, NOW + 5_000));
            v.stored(value("carol", "c1", 9, NOW + 60_000));
            v.removed("carol");
            assertTrue(v.flush(10_000));
        }
        wall.set(NOW + 10_000);

        try (WriteBehindValues v = WriteBehindValues.open(data(100, Duration.ofSeconds(1)), "chord", wall::get)) {
            List<HeldValue> back = v.recovered();
            assertEquals(1, back.size(), "bob expired, carol was removed: " + back);
            HeldValue alice = back.get(0);
            assertEquals("alice", alice.key());
            assertArrayEquals("a1".getBytes(), alice.value());
            assertEquals(7, alice.version());
            assertEquals(NOW + 60_000, alice.expiresAtMillis());
        }
        wall.set(NOW);
        try (WriteBehindValues v = WriteBehindValues.open(data(100, Duration.ofSeconds(1)), "chord", wall::get)) {
            assertEquals(1, v.recovered().size(), "the expired value was dropped from the file, not just skipped");
        }
    }

    @Test
    void closingWritesWhatIsPending() throws Exception {
        try (WriteBehindValues v = WriteBehindValues.open(data(1_000, Duration.ofHours(1)), "local", wall::get)) {
            v.stored(value("alice", "a1", 1, NOW + 60_000));
        }
        try (WriteBehindValues v = WriteBehindValues.open(data(1_000, Duration.ofHours(1)), "local", wall::get)) {
            assertEquals(1, v.recovered().size());
        }
    }

    @Test
    void aFullBatchIsWrittenWithoutWaitingForTheInterval() throws Exception {
        try (WriteBehindValues v = WriteBehindValues.open(data(3, Duration.ofHours(1)), "local", wall::get)) {
            for (int i = 0; i < 3; i++) {
                v.stored(value("k" + i, "v", i + 1, NOW + 60_000));
            }
            Eventually.until(() -> v.written() == 3, Duration.ofSeconds(10), "three changes written");
            assertEquals(0, v.pending());
        }
    }

    @Test
    void aLoneChangeIsWrittenOnceItHasWaitedTheInterval() throws Exception {
        try (WriteBehindValues v = WriteBehindValues.open(data(1_000, Duration.ofMillis(50)), "local", wall::get)) {
            v.stored(value("alice", "a1", 1, NOW + 60_000));
            Eventually.until(() -> v.written() == 1, Duration.ofSeconds(10), "the change written by the interval");
        }
    }

    @Test
    void changesToOneKeyThatMeetInABatchAreWrittenOnceTheLastOfThem() throws Exception {
        try (WriteBehindValues v = WriteBehindValues.open(data(1_000, Duration.ofHours(1)), "local", wall::get)) {
            v.stored(value("alice", "a1", 1, NOW + 60_000));
            v.stored(value("alice", "a2", 2, NOW + 60_000));
            v.removed("alice");
            v.stored(value("alice", "a3", 3, NOW + 60_000));
            assertEquals(1, v.pending());
            assertTrue(v.flush(10_000));
            assertEquals(1, v.written());
        }
        try (WriteBehindValues v = WriteBehindValues.open(data(1_000, Duration.ofHours(1)), "local", wall::get)) {
            assertArrayEquals("a3".getBytes(), v.recovered().get(0).value());
        }
    }

    @Test
    void rewritingTheSameValuesReusesTheFileInsteadOfGrowingIt() throws Exception {
        Path file = dir.resolve("local.mv.db");
        long afterFirstRound = 0;
        try (WriteBehindValues v = WriteBehindValues.open(data(100, Duration.ofMillis(50)), "local", wall::get)) {
            for (int round = 0; round < 30; round++) {
                for (int k = 0; k < 5_000; k++) {
                    v.stored(new HeldValue("user" + k, new byte[300], round * 10_000L + k + 1, NOW + 60_000));
                }
                assertTrue(v.flush(30_000));
                if (round == 0) {
                    afterFirstRound = Files.size(file);
                }
            }
            long after = Files.size(file);
            // Reused, it levels off at a few times the live data (here 3-5 times); kept, it grows by a round's worth
            // with every round.
            assertTrue(after < 10 * afterFirstRound, "thirty rewrites of the same 5,000 values grew the file from "
                    + afterFirstRound + " to " + after + " bytes");
        }
    }

    @Test
    void aFileAnotherStoreHasOpenIsRefused() throws Exception {
        try (WriteBehindValues v = WriteBehindValues.open(data(100, Duration.ofSeconds(1)), "chord", wall::get)) {
            IOException e = assertThrows(IOException.class,
                    () -> WriteBehindValues.open(data(100, Duration.ofSeconds(1)), "chord", wall::get));
            assertTrue(e.getMessage().contains("chord.mv.db"), e.getMessage());
        }
    }

    @Test
    void aFileThatIsNoStoreIsRefusedWithItsName() throws Exception {
        Files.write(dir.resolve("chord.mv.db"), "not a store".repeat(500).getBytes());
        IOException e = assertThrows(IOException.class,
                () -> WriteBehindValues.open(data(100, Duration.ofSeconds(1)), "chord", wall::get));
        assertTrue(e.getMessage().contains("chord.mv.db"), e.getMessage());
    }

    @Test
    void aMissingDirectoryIsMade() throws Exception {
        Path deeper = dir.resolve("a").resolve("b");
        try (WriteBehindValues v = WriteBehindValues.open(new DataDir(deeper, FlushPolicy.DEFAULT), "local",
                wall::get)) {
            assertTrue(Files.isDirectory(deeper));
        }
        try (var files = Files.walk(deeper)) {
            assertTrue(files.sorted(Comparator.reverseOrder()).anyMatch(p -> p.toString().endsWith("local.mv.db")));
        }
    }
}
