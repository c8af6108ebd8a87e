package org.p2psip.loadtest.bench;

import java.util.OptionalDouble;

/**
 * The search for the highest rate a target sustains, as pure logic: the
 * caller runs a step at {@link #nextRate}, judges it, and reports the
 * verdict to {@link #record}. Rates grow geometrically (times
 * {@code growth}) while steps hold; after the first step that fails, the
 * search bisects between the best rate that held and the lowest that failed
 * until the two are within {@code precision} of each other. Every step is
 * one run, so the number of steps is capped too.
 *
 * <p>A rate fails only when it fails twice in a row: the first failing step
 * is run again at once. One collection pause or a neighbour's burst on a
 * shared machine can sink a single five-second step, and without the second
 * look the search would bisect down from a rate the target sustains. A
 * real limit fails both times and costs one extra step.
 *
 * <p>What "holds" means is {@link Criteria}: the paper's and Kamailio's
 * figure of merit is the rate at which (almost) every request succeeds with
 * bounded latency, not the rate at which the server merely stays up.
 */
public final class MaxRateSearch {

    /**
     * When a step at a given rate holds.
     *
     * @param minSuccess         lowest acceptable share of successful requests, e.g. 0.999
     * @param p99BoundMillis     highest acceptable 99th-percentile latency
     * @param minAchievedShare   lowest acceptable achieved/offered rate: a step whose generator or
     *                           target could not keep the pace did not really run at that rate
     */
    public record Criteria(double minSuccess, double p99BoundMillis, double minAchievedShare) {

        public static final Criteria DEFAULT = new Criteria(0.999, 200, 0.95);

        /** The verdict on one finished step. */
        public boolean holds(double offeredRate, double achievedRate, double successRatio, double p99Millis) {
            return successRatio >= minSuccess && p99Millis <= p99BoundMillis
                    && achievedRate >= minAchievedShare * offeredRate;
        }
    }

    private final double growth;
    private final double precision;
    private final int maxSteps;
    private double best;
    private double lowestFailed = Double.POSITIVE_INFINITY;
    private double next;
    private int steps;
    private boolean confirming;
    private boolean done;

    /**
     * @param startRate first rate tried
     * @param growth    factor between steps while they hold, more than 1
     * @param precision stop when {@code (failed - best) / failed} is below this, e.g. 0.05
     * @param maxSteps  most steps in all
     */
    public MaxRateSearch(double startRate, double growth, double precision, int maxSteps) {
        if (!(startRate >= 1) || !(growth > 1) || !(precision > 0) || maxSteps < 1) {
            throw new IllegalArgumentException("need start rate >= 1, growth > 1, precision > 0, steps >= 1");
        }
        this.growth = growth;
        this.precision = precision;
        this.maxSteps = maxSteps;
        this.next = Math.rint(startRate);
    }

    /** The rate of the next step, or empty when the search is over. */
    public OptionalDouble nextRate() {
        return done ? OptionalDouble.empty() : OptionalDouble.of(next);
    }

    /** Reports the verdict on the step just run at {@link #nextRate} and returns the rate of the following one. */
    public OptionalDouble record(boolean held) {
        if (done) {
            throw new IllegalStateException("the search is over");
        }
        steps++;
        if (!held && !confirming && steps < maxSteps) {
            confirming = true;
            return OptionalDouble.of(next);
        }
        confirming = false;
        if (held) {
            best = Math.max(best, next);
        } else {
            lowestFailed = Math.min(lowestFailed, next);
        }
        double candidate;
        if (lowestFailed == Double.POSITIVE_INFINITY) {
            candidate = Math.rint(next * growth);
        } else if ((lowestFailed - best) / lowestFailed < precision) {
            candidate = Double.NaN;
        } else {
            candidate = Math.rint((best + lowestFailed) / 2);
        }
        if (steps >= maxSteps || Double.isNaN(candidate) || candidate < 1 || candidate <= best
                || candidate >= lowestFailed) {
            done = true;
            return OptionalDouble.empty();
        }
        next = candidate;
        return OptionalDouble.of(next);
    }

    /** The highest rate that held so far; 0 when none did. */
    public double best() {
        return best;
    }

    /** Steps recorded so far. */
    public int steps() {
        return steps;
    }

    public boolean done() {
        return done;
    }
}
