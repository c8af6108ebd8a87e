package org.p2psip.core.store;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.time.Duration;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;

/** When a write-behind writer flushes, on a manual clock (nanoseconds passed in). */
class FlushScheduleTest {

    static final long START = 1_000_000_000L;
    static final long MS = TimeUnit.MILLISECONDS.toNanos(1);
    final FlushSchedule schedule = new FlushSchedule(new FlushPolicy(100, Duration.ofMillis(500)));

    @Test
    void nothingWaitingMeansSleepUntilARecordComes() {
        assertEquals(FlushSchedule.IDLE, schedule.nanosToWait(0, START, START + 10_000 * MS));
    }

    @Test
    void aFewRecordsWaitForTheRestOfTheInterval() {
        assertEquals(500 * MS, schedule.nanosToWait(1, START, START));
        assertEquals(200 * MS, schedule.nanosToWait(99, START, START + 300 * MS));
    }

    @Test
    void theOldestHavingWaitedTheIntervalFlushesHoweverFewWait() {
        assertEquals(0, schedule.nanosToWait(1, START, START + 500 * MS));
        assertEquals(0, schedule.nanosToWait(1, START, START + 5_000 * MS));
    }

    @Test
    void theFlushCountFlushesAtOnce() {
        assertEquals(0, schedule.nanosToWait(100, START, START));
        assertEquals(0, schedule.nanosToWait(5_000, START, START));
    }

    @Test
    void aCountOfOneWritesEachRecordAsSoonAsTheWriterIsFree() {
        FlushSchedule eager = new FlushSchedule(new FlushPolicy(1, Duration.ofSeconds(1)));
        assertEquals(0, eager.nanosToWait(1, START, START));
    }

    @Test
    void aClockThatWrapsStillMeasuresTheWait() {
        long before = Long.MAX_VALUE - 100 * MS;
        assertEquals(0, schedule.nanosToWait(1, before, before + 600 * MS));
        assertEquals(400 * MS, schedule.nanosToWait(1, before, before + 100 * MS));
    }

    @Test
    void oneTransactionTakesAtLeastAThousandRecordsAndAtLeastTheFlushCount() {
        assertEquals(1_000, new FlushSchedule(new FlushPolicy(1, Duration.ofSeconds(1))).batchLimit());
        assertEquals(1_000, schedule.batchLimit());
        assertEquals(5_000, new FlushSchedule(new FlushPolicy(5_000, Duration.ofSeconds(1))).batchLimit());
    }

    @Test
    void theWriterIsWokenAtTheFirstRecordAndAtTheFlushCountOnly() {
        assertEquals(true, schedule.wakesWriter(1));
        assertEquals(false, schedule.wakesWriter(2));
        assertEquals(false, schedule.wakesWriter(99));
        assertEquals(true, schedule.wakesWriter(100));
        assertEquals(false, schedule.wakesWriter(101));
    }

    @Test
    void aPolicyNeedsAPositiveCountAndInterval() {
        assertThrows(IllegalArgumentException.class, () -> new FlushPolicy(0, Duration.ofSeconds(1)));
        assertThrows(IllegalArgumentException.class, () -> new FlushPolicy(1, Duration.ZERO));
    }
}
