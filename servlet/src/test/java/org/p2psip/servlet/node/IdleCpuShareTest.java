package org.p2psip.servlet.node;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Optional;

import org.junit.jupiter.api.Test;

class IdleCpuShareTest {

    private static final long SLICE = IdleCpuShare.SLICE_NANOS;

    /** A two-core host: 100 ticks of host time per core per slice, so 200 in all. */
    private static IdleCpuShare.Sample at(int slice, long hostBusyTicks, double ownCores) {
        return new IdleCpuShare.Sample(slice * SLICE, hostBusyTicks, slice * 200L, (long) (slice * SLICE * ownCores));
    }

    @Test
    void aSaturatedHostKeptBusyByOthersClosesTheNextSlice() {
        IdleCpuShare share = new IdleCpuShare(2);
        assertTrue(share.mayRun(at(0, 0, 0)));
        // 195 of 200 ticks busy, this process used a quarter of a core: others kept 1.75 cores busy.
        assertFalse(share.mayRun(at(1, 195, 0.25)));
    }

    @Test
    void theDecisionHoldsUntilTheSliceEnds() {
        IdleCpuShare share = new IdleCpuShare(2);
        share.mayRun(at(0, 0, 0));
        assertFalse(share.mayRun(at(1, 195, 0.25)));
        assertFalse(share.mayRun(new IdleCpuShare.Sample(SLICE + SLICE / 2, 195, 200, SLICE / 4)));
    }

    @Test
    void aHostThatLeftIdleTimeOpensTheGateAgain() {
        IdleCpuShare share = new IdleCpuShare(2);
        share.mayRun(at(0, 0, 0));
        assertFalse(share.mayRun(at(1, 195, 0.25)));
        // The next slice: 120 more of 200 ticks busy.
        assertTrue(share.mayRun(new IdleCpuShare.Sample(2 * SLICE, 195 + 120, 400, SLICE / 2)));
    }

    @Test
    void aHostSaturatedByThisProcessAloneDoesNotHoldItBack() {
        IdleCpuShare share = new IdleCpuShare(2);
        share.mayRun(at(0, 0, 0));
        // 196 of 200 busy, 1.8 of the 2 cores this process's own (the warm-up and its JIT threads).
        assertTrue(share.mayRun(at(1, 196, 1.8)));
    }

    @Test
    void busyOthersOnAHostWithIdleTimeDoNotHoldItBack() {
        IdleCpuShare share = new IdleCpuShare(2);
        share.mayRun(at(0, 0, 0));
        assertTrue(share.mayRun(at(1, 160, 0.1)));
    }

    @Test
    void aHostHasACore() {
        assertThrows(IllegalArgumentException.class, () -> new IdleCpuShare(0));
    }

    @Test
    void idleAndIowaitTicksAreIdleAndGuestTicksAreNotCountedTwice() {
        Optional<HostCpuGate.CpuLine> line = HostCpuGate.CpuLine.parse("cpu  100 5 50 800 40 3 2 0 70 0");
        assertEquals(Optional.of(new HostCpuGate.CpuLine(160, 1000)), line);
    }

    @Test
    void aLineThatIsNotTheAggregateCpuLineIsNotRead() {
        assertEquals(Optional.empty(), HostCpuGate.CpuLine.parse("cpu0 1 2 3 4 5"));
        assertEquals(Optional.empty(), HostCpuGate.CpuLine.parse("cpu 1 2 x 4 5"));
        assertEquals(Optional.empty(), HostCpuGate.CpuLine.parse("cpu 1 2"));
    }
}
