package org.p2psip.loadtest.bench;

import java.time.Duration;

/**
 * How {@link LoadRun#searchMaxRate} searches: see {@link MaxRateSearch}.
 *
 * @param startRate    first rate tried
 * @param growth       factor between steps while they hold
 * @param precision    relative gap between held and failed rates at which the search stops
 * @param maxSteps     most steps
 * @param stepDuration how long each step sends
 * @param criteria     when a step holds
 */
public record RateSearchSpec(double startRate, double growth, double precision, int maxSteps, Duration stepDuration,
                             MaxRateSearch.Criteria criteria) {

    /** Start at 500/s, grow by half, stop within 5 %, at most 20 steps of 5 s (a failing rate is tried twice), 99.9 % success and p99 within 200 ms. */
    public static final RateSearchSpec DEFAULT =
            new RateSearchSpec(500, 1.5, 0.05, 20, Duration.ofSeconds(5), MaxRateSearch.Criteria.DEFAULT);

    public RateSearchSpec withStartRate(double r) {
        return new RateSearchSpec(r, growth, precision, maxSteps, stepDuration, criteria);
    }

    public RateSearchSpec withStepDuration(Duration d) {
        return new RateSearchSpec(startRate, growth, precision, maxSteps, d, criteria);
    }

    public RateSearchSpec withP99Bound(double millis) {
        return new RateSearchSpec(startRate, growth, precision, maxSteps, stepDuration,
                new MaxRateSearch.Criteria(criteria.minSuccess(), millis, criteria.minAchievedShare()));
    }
}
