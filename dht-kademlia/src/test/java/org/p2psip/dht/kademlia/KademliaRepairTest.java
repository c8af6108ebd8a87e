package org.p2psip.dht.kademlia;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

import org.junit.jupiter.api.Test;

/** The REPAIR message: several keys handed to a new holder at once, and how a hand-over cuts them into messages. */
class KademliaRepairTest {

    private static KademliaWire.Repair repair(int i, int valueBytes) {
        return new KademliaWire.Repair("sip:u" + i + "@repair.test",
                new StoredValue(new byte[valueBytes], 1_000 + i, 5_000, false, i));
    }

    private static List<KademliaWire.Repair> repairs(int n, int valueBytes) {
        List<KademliaWire.Repair> list = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            list.add(repair(i, valueBytes));
        }
        return list;
    }

    @Test
    void keysValuesAndOutcomesSurviveTheWireInOrder() {
        List<KademliaWire.Repair> sent = repairs(3, 40);
        byte[] bytes = new KademliaWire.Out().repairs(sent).bytes();
        List<KademliaWire.Repair> read = new KademliaWire.In(bytes).repairs();
        assertEquals(sent.size(), read.size());
        for (int i = 0; i < sent.size(); i++) {
            assertEquals(sent.get(i).key(), read.get(i).key());
            assertEquals(sent.get(i).value().version(), read.get(i).value().version());
            assertEquals(sent.get(i).value().writeId(), read.get(i).value().writeId());
        }
        List<StoreOutcome> outcomes = List.of(StoreOutcome.TAKEN, StoreOutcome.REFUSED_NEWER, StoreOutcome.TAKEN);
        assertEquals(outcomes, new KademliaWire.In(new KademliaWire.Out().outcomes(outcomes).bytes()).outcomes());
    }

    @Test
    void anEmptyOrOversizedRepairIsRefusedOnBothSides() {
        assertThrows(IllegalArgumentException.class, () -> new KademliaWire.Out().repairs(List.of()));
        assertThrows(IllegalArgumentException.class,
                () -> new KademliaWire.Out().repairs(repairs(KademliaWire.MAX_REPAIRS + 1, 1)));
        byte[] tooMany = new KademliaWire.Out().u16(KademliaWire.MAX_REPAIRS + 1).bytes();
        assertThrows(IllegalArgumentException.class, () -> new KademliaWire.In(tooMany).repairs());
        byte[] none = new KademliaWire.Out().u16(0).bytes();
        assertThrows(IllegalArgumentException.class, () -> new KademliaWire.In(none).repairs());
        byte[] valueless = new KademliaWire.Out().u16(1).text("sip:a@b").value(java.util.Optional.empty()).bytes();
        assertThrows(IllegalArgumentException.class, () -> new KademliaWire.In(valueless).repairs());
    }

    @Test
    void aHandOverCutsItsKeysAtTheKeyLimit() {
        List<List<KademliaWire.Repair>> messages = KademliaMaintenance.messages(repairs(150, 100));
        assertEquals(List.of(KademliaWire.MAX_REPAIRS, KademliaWire.MAX_REPAIRS, 150 - 2 * KademliaWire.MAX_REPAIRS),
                messages.stream().map(List::size).toList());
    }

    @Test
    void aHandOverCutsLargeValuesAtTheByteBudgetAndSendsAnOversizedOneAlone() {
        int big = KademliaMaintenance.REPAIR_BYTES / 3;
        List<List<KademliaWire.Repair>> messages = KademliaMaintenance.messages(repairs(5, big));
        assertEquals(List.of(2, 2, 1), messages.stream().map(List::size).toList());
        List<List<KademliaWire.Repair>> huge = KademliaMaintenance.messages(
                List.of(repair(0, 2 * KademliaMaintenance.REPAIR_BYTES), repair(1, 10)));
        assertEquals(List.of(1, 1), huge.stream().map(List::size).toList());
        assertEquals(Collections.emptyList(), KademliaMaintenance.messages(List.of()));
    }
}
