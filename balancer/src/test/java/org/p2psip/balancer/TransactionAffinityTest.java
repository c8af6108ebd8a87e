package org.p2psip.balancer;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import org.junit.jupiter.api.Test;

class TransactionAffinityTest {

    private static final long SECOND = 1_000_000_000L;
    private static final long NOW = 7_000 * SECOND;

    private final TransactionAffinity table = new TransactionAffinity();

    @Test
    void anUnknownTransactionHasNoNode() {
        assertEquals(-1, table.nodeOf(0x1234_5678_9abc_def0L, NOW));
    }

    @Test
    void aRememberedTransactionNamesItsNodeUntilTimerF() {
        long tx = Fnv.hash("z9hG4bK-a|10.0.0.1:5060");
        table.remember(tx, 3, NOW);
        assertEquals(3, table.nodeOf(tx, NOW));
        assertEquals(3, table.nodeOf(tx, NOW + 31 * SECOND));
        assertEquals(-1, table.nodeOf(tx, NOW + 33 * SECOND), "the client gave up at 32 s");
    }

    @Test
    void anotherTransactionInTheSameSlotIsNotMistakenForIt() {
        long tx = 0x0000_0001_0000_0005L;
        long sameSlot = tx + ((long) TransactionAffinity.SLOTS << 20);
        table.remember(tx, 1, NOW);
        assertEquals(-1, table.nodeOf(sameSlot, NOW));
        table.remember(sameSlot, 2, NOW);
        assertEquals(-1, table.nodeOf(tx, NOW), "the slot now holds the other one");
        assertEquals(2, table.nodeOf(sameSlot, NOW));
    }

    @Test
    void theLatestChoiceForATransactionWins() {
        table.remember(42L, 0, NOW);
        table.remember(42L, 4, NOW + SECOND);
        assertEquals(4, table.nodeOf(42L, NOW + 2 * SECOND));
    }

    @Test
    void agesAreRightWhenTheNanosecondClockCrossesZero() {
        long justBelow = -SECOND;
        table.remember(99L, 7, justBelow);
        assertEquals(7, table.nodeOf(99L, justBelow + 10 * SECOND));
        assertEquals(-1, table.nodeOf(99L, justBelow + 40 * SECOND));
        table.remember(100L, 6, Long.MAX_VALUE - SECOND);
        assertEquals(6, table.nodeOf(100L, Long.MAX_VALUE - SECOND + 10 * SECOND));
    }

    @Test
    void everyNodeIndexTheFieldHoldsRoundTrips() {
        table.remember(5L, 0, NOW);
        assertEquals(0, table.nodeOf(5L, NOW));
        table.remember(6L, TransactionAffinity.MAX_NODES - 1, NOW);
        assertEquals(TransactionAffinity.MAX_NODES - 1, table.nodeOf(6L, NOW));
        assertThrows(IllegalArgumentException.class, () -> table.remember(7L, TransactionAffinity.MAX_NODES, NOW));
        assertThrows(IllegalArgumentException.class, () -> table.remember(7L, -1, NOW));
    }
}
