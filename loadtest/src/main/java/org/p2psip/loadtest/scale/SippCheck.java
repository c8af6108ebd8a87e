package org.p2psip.loadtest.scale;

/**
 * SIPp's run against the same target at the rate our generator found,
 * and whether the two agree.
 *
 * @param rate            the offered rate both ran at, per second
 * @param ourAchieved     what our generator achieved at that rate
 * @param sippAchieved    successful SIPp calls per second of SIPp's run, 0 when it did not run
 * @param sippSuccessful  SIPp's successful calls
 * @param sippFailed      SIPp's failed calls
 * @param agree           whether the achieved rates are within {@link #TOLERANCE} of each other
 * @param note            what went wrong, or empty
 */
public record SippCheck(double rate, double ourAchieved, double sippAchieved, long sippSuccessful, long sippFailed,
                        boolean agree, String note) {

    /** The largest relative difference that still counts as agreement. */
    public static final double TOLERANCE = 0.10;

    public SippCheck {
        note = note == null ? "" : note;
    }

    /** Judges two achieved rates: agreement when they differ by at most 10 % of ours. */
    public static SippCheck judge(double rate, double ourAchieved, double sippAchieved, long ok, long failed) {
        boolean agree = ourAchieved > 0 && Math.abs(sippAchieved - ourAchieved) <= TOLERANCE * ourAchieved;
        return new SippCheck(rate, ourAchieved, sippAchieved, ok, failed, agree, "");
    }

    /** A cross-check that could not run. */
    public static SippCheck notRun(double rate, double ourAchieved, String why) {
        return new SippCheck(rate, ourAchieved, 0, 0, 0, false, why);
    }

    /** Relative difference of SIPp's achieved rate from ours; NaN without ours. */
    public double difference() {
        return ourAchieved > 0 ? (sippAchieved - ourAchieved) / ourAchieved : Double.NaN;
    }
}
