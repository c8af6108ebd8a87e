package org.p2psip.dht.kademlia;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.math.BigInteger;
import java.util.List;
import java.util.Optional;
import java.util.SplittableRandom;

import org.junit.jupiter.api.Test;
import org.p2psip.core.net.HostPort;

/** k-buckets on an 8-bit id space: placement by XOR distance, LRU order, and eviction only after a failed ping. */
class RoutingTableTest {

    private static final IdSpace SPACE = new IdSpace(8);
    private static final BigInteger SELF = BigInteger.valueOf(0b1010_0000);

    private static Contact c(int id) {
        return new Contact(BigInteger.valueOf(id), new HostPort("127.0.0.1", 1000 + id), Optional.empty());
    }

    @Test
    void bucketIndexIsTheHighestDifferingBit() {
        assertEquals(7, SPACE.bucketIndex(SELF, BigInteger.valueOf(0b0010_0000)));
        assertEquals(0, SPACE.bucketIndex(SELF, BigInteger.valueOf(0b1010_0001)));
        assertEquals(4, SPACE.bucketIndex(SELF, BigInteger.valueOf(0b1011_1111)));
        assertEquals(-1, SPACE.bucketIndex(SELF, SELF));
        SplittableRandom random = new SplittableRandom(1);
        for (int bucket = 0; bucket < 8; bucket++) {
            for (int i = 0; i < 20; i++) {
                assertEquals(bucket, SPACE.bucketIndex(SELF, SPACE.randomIdInBucket(SELF, bucket, random)));
            }
        }
    }

    @Test
    void fullBucketAsksForAPingOfItsLeastRecentlySeenAndKeepsItIfItAnswers() {
        RoutingTable table = new RoutingTable(SPACE, SELF, 3);
        // 0x00..0x7f all fall in bucket 7 of 0xa0.
        assertInstanceOf(RoutingTable.Observation.Inserted.class, table.observe(c(1), 1));
        table.observe(c(2), 2);
        table.observe(c(3), 3);
        RoutingTable.Observation full = table.observe(c(4), 4);
        RoutingTable.Observation.BucketFull f = assertInstanceOf(RoutingTable.Observation.BucketFull.class, full);
        assertEquals(c(1), f.leastRecentlySeen());
        assertEquals(c(4), f.newcomer());
        // The ping succeeded: the old contact is seen again and moves to the tail; the newcomer is not added.
        assertInstanceOf(RoutingTable.Observation.Refreshed.class, table.observe(c(1), 5));
        assertEquals(List.of(c(2), c(3), c(1)), table.bucket(7));
        assertTrue(table.find(BigInteger.valueOf(4)).isEmpty());
    }

    @Test
    void failedPingEvictsTheLeastRecentlySeenForTheNewcomer() {
        RoutingTable table = new RoutingTable(SPACE, SELF, 3);
        table.observe(c(1), 1);
        table.observe(c(2), 2);
        table.observe(c(3), 3);
        RoutingTable.Observation.BucketFull f = (RoutingTable.Observation.BucketFull) table.observe(c(4), 4);
        assertTrue(table.replace(f.leastRecentlySeen(), f.newcomer(), 5));
        assertEquals(List.of(c(2), c(3), c(4)), table.bucket(7));
        // A late second failure report of the same contact changes nothing.
        assertFalse(table.replace(c(1), c(5), 6));
        assertEquals(List.of(c(2), c(3), c(4)), table.bucket(7));
    }

    @Test
    void replaceIsSkippedWhenTheStaleContactWasSeenMeanwhile() {
        RoutingTable table = new RoutingTable(SPACE, SELF, 2);
        table.observe(c(1), 1);
        table.observe(c(2), 2);
        RoutingTable.Observation.BucketFull f = (RoutingTable.Observation.BucketFull) table.observe(c(3), 3);
        table.observe(c(1), 4);
        assertFalse(table.replace(f.leastRecentlySeen(), f.newcomer(), 5));
        assertEquals(List.of(c(2), c(1)), table.bucket(7));
    }

    @Test
    void closestIsOrderedByXorDistanceAndNeverIncludesSelf() {
        RoutingTable table = new RoutingTable(SPACE, SELF, 20);
        for (int id : new int[] {0x00, 0x0f, 0xa1, 0xa3, 0xb0, 0xff, 0x7f, 0xa0}) {
            table.observe(c(id), 1);
        }
        List<BigInteger> ids = table.closest(BigInteger.valueOf(0xa2), 4).stream().map(Contact::id).toList();
        assertEquals(List.of(BigInteger.valueOf(0xa3), BigInteger.valueOf(0xa1), BigInteger.valueOf(0xb0),
                BigInteger.valueOf(0xff)), ids);
        assertEquals(7, table.size());
    }

    @Test
    void onlyBucketsFromTheNearestNeighbourOutwardAndUntouchedAreDueForRefresh() {
        RoutingTable table = new RoutingTable(SPACE, SELF, 20);
        table.observe(c(0xb0), 100);   // bucket 4
        table.observe(c(0x20), 100);   // bucket 7
        assertEquals(List.of(5, 6), table.bucketsToRefresh(150, 100));
        assertEquals(List.of(4, 5, 6, 7), table.bucketsToRefresh(200, 100));
        table.touch(6, 190);
        assertEquals(List.of(4, 5, 7), table.bucketsToRefresh(200, 100));
    }

    @Test
    void membershipChangesAreCountedButContactsSeenAgainAreNot() {
        RoutingTable table = new RoutingTable(SPACE, SELF, 2);
        table.observe(c(1), 1);
        table.observe(c(2), 2);
        assertEquals(2, table.changes());
        table.observe(c(1), 3);
        RoutingTable.Observation.BucketFull f = (RoutingTable.Observation.BucketFull) table.observe(c(3), 4);
        assertEquals(2, table.changes(), "a contact seen again, or turned away by a full bucket, is no change");
        table.replace(f.leastRecentlySeen(), f.newcomer(), 5);
        assertEquals(3, table.changes());
        assertFalse(table.remove(BigInteger.valueOf(99)));
        assertTrue(table.remove(BigInteger.valueOf(3)));
        assertEquals(4, table.changes());
    }

    @Test
    void sizeFollowsInsertsEvictionsAndRemovals() {
        RoutingTable table = new RoutingTable(SPACE, SELF, 2);
        table.observe(c(1), 1);
        table.observe(c(2), 2);
        table.observe(c(0b1010_0001), 3);
        table.observe(c(1), 4);
        assertEquals(3, table.size(), "a contact seen again is counted once");
        RoutingTable.Observation.BucketFull f = (RoutingTable.Observation.BucketFull) table.observe(c(3), 5);
        assertEquals(3, table.size(), "a newcomer turned away by a full bucket is not counted");
        assertTrue(table.replace(f.leastRecentlySeen(), f.newcomer(), 6));
        assertEquals(3, table.size(), "an eviction swaps one contact for another");
        assertFalse(table.replace(c(2), c(4), 7), "the evicted contact is no longer at the head");
        assertTrue(table.remove(BigInteger.valueOf(3)));
        assertFalse(table.remove(BigInteger.valueOf(3)));
        assertEquals(2, table.size());
        assertEquals(table.contacts().size(), table.size());
    }

    @Test
    void nearestFullBucketIsTheLowestOneWithKContacts() {
        RoutingTable table = new RoutingTable(SPACE, SELF, 2);
        assertEquals(8, table.nearestFullBucket(), "none full: the id width");
        table.observe(c(0x00), 1);   // bucket 7
        table.observe(c(0x01), 1);
        table.observe(c(0xb0), 1);   // bucket 4
        assertEquals(7, table.nearestFullBucket());
        table.observe(c(0xb1), 1);
        assertEquals(4, table.nearestFullBucket());
    }
}
