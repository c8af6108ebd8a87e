package org.p2psip.dht.chord;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.math.BigInteger;
import java.util.List;
import java.util.Optional;

import org.junit.jupiter.api.Test;

class JoinPlacementTest {

    private static final IdSpace SPACE = new IdSpace(8);
    private static final long HOLD = 15_000_000_000L;

    private static BigInteger id(int n) {
        return BigInteger.valueOf(n);
    }

    private static JoinPlacement.Gap gap(int from, int to) {
        return new JoinPlacement.Gap(id(from), id(to));
    }

    private final JoinPlacement placement = new JoinPlacement(SPACE, HOLD);

    @Test
    void aLoneMemberHandsOutTheWholeRing() {
        assertEquals(gap(10, 10), placement.widest(Optional.empty(), id(10), List.of(id(10)), 0));
    }

    @Test
    void theWidestGapOfARingTheSuccessorListHasComeRoundIsFoundWhereverItIs() {
        // Ring 0, 100, 120 seen from 100: the widest gap is the one that wraps, (120, 0].
        assertEquals(gap(120, 0), placement.widest(Optional.of(id(0)), id(100), List.of(id(120), id(0), id(100)), 0));
    }

    @Test
    void anArcThatDoesNotComeRoundIsSearchedOnlyWhereItsMembersAreKnownToBeAdjacent() {
        // From 20, with predecessor 10 and successors 30, 100, 110: nothing is known of (110, 10].
        assertEquals(gap(30, 100), placement.widest(Optional.of(id(10)), id(20), List.of(id(30), id(100), id(110)),
                0));
    }

    @Test
    void joinersAtOnceArePlacedInTheGapsTheOnesBeforeThemLeft() {
        List<BigInteger> alone = List.of(id(0));
        assertEquals(id(96), placement.place(Optional.empty(), id(0), alone, id(0), 0), "3/8 of the whole ring");
        assertEquals(id(156), placement.place(Optional.empty(), id(0), alone, id(0), 1),
                "the first joiner counts as a member though it has not joined yet: (96, 0] is widest, 96 + 3/8 of 160");
        assertEquals(id(192), placement.place(Optional.empty(), id(0), alone, id(0), 2), "(156, 0]: 156 + 3/8 of 100");
    }

    @Test
    void aPlacedIdCountsAsAMemberOnlyForAsLongAsAJoinTakes() {
        List<BigInteger> alone = List.of(id(0));
        placement.place(Optional.empty(), id(0), alone, id(0), 0);
        assertEquals(gap(0, 0), placement.widest(Optional.empty(), id(0), alone, HOLD),
                "a joiner that never came leaves the ring as it was");
    }

    @Test
    void aJoinerTakesBetweenThreeAndFiveEighthsOfItsGapAtThePointItsSeedPicks() {
        JoinPlacement.Gap wrapping = gap(200, 40);
        assertEquals(id(236), JoinPlacement.idIn(SPACE, wrapping, id(0)), "200 + 3/8 of 96");
        assertEquals(id(3), JoinPlacement.idIn(SPACE, wrapping, id(23)), "236 + 23, past the top of the ring");
        assertEquals(id(236), JoinPlacement.idIn(SPACE, wrapping, id(24)), "the seed wraps within a quarter");
        assertEquals(id(96 + 3), JoinPlacement.idIn(SPACE, gap(0, 0), id(3)), "3/8 of the whole ring, plus 3");
    }

    @Test
    void fourNodesJoiningAtOnceThroughOneSeedEachOwnBetweenAnEighthAndAHalf() {
        IdSpace space = IdSpace.SHA1;
        for (int trial = 0; trial < 50; trial++) {
            JoinPlacement seedSide = new JoinPlacement(space, HOLD);
            BigInteger seed = space.idOf("seed-" + trial);
            List<BigInteger> ids = new java.util.ArrayList<>(List.of(seed));
            for (int j = 1; j < 4; j++) {
                ids.add(seedSide.place(Optional.empty(), seed, List.of(seed), space.idOf("joiner-" + trial + "-" + j),
                        j));
            }
            ids.sort(null);
            for (int i = 0; i < ids.size(); i++) {
                double share = space.distance(ids.get((i + ids.size() - 1) % ids.size()), ids.get(i)).doubleValue()
                        / space.size().doubleValue();
                assertTrue(share >= 0.125 && share <= 0.5, "trial " + trial + ": share " + share + " of " + ids);
            }
        }
    }

    @Test
    void fourNodesJoiningOneAfterAnotherEachOwnBetweenAnEighthAndAHalf() {
        IdSpace space = IdSpace.SHA1;
        for (int trial = 0; trial < 50; trial++) {
            JoinPlacement seedSide = new JoinPlacement(space, HOLD);
            java.util.TreeSet<BigInteger> ring = new java.util.TreeSet<>();
            BigInteger seed = space.idOf("seed-" + trial);
            ring.add(seed);
            for (int j = 1; j < 4; j++) {
                List<BigInteger> successors = new java.util.ArrayList<>(ring.tailSet(seed, false));
                successors.addAll(ring.headSet(seed, true));
                Optional<BigInteger> pred = ring.size() == 1 ? Optional.empty()
                        : Optional.of(successors.get(successors.size() - 2));
                ring.add(seedSide.place(pred, seed, successors, space.idOf("joiner-" + trial + "-" + j), j));
            }
            List<BigInteger> ids = List.copyOf(ring);
            for (int i = 0; i < ids.size(); i++) {
                double share = space.distance(ids.get((i + ids.size() - 1) % ids.size()), ids.get(i)).doubleValue()
                        / space.size().doubleValue();
                assertTrue(share >= 0.125 && share <= 0.5, "trial " + trial + ": share " + share + " of " + ids);
            }
        }
    }
}
