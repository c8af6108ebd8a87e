package org.p2psip.core.dht;

/**
 * The points {@code first} to {@code last}, both included, compared
 * unsigned ({@link KeyPlacement#point}). It never wraps: a range across the
 * top of the space is two of these.
 */
public record KeyRange(long first, long last) {

    /** Every point there is. */
    public static final KeyRange ALL = new KeyRange(0, -1L);

    public KeyRange {
        if (Long.compareUnsigned(first, last) > 0) {
            throw new IllegalArgumentException("a key range must not end before it starts: "
                    + hex(first) + "-" + hex(last));
        }
    }

    public boolean contains(long point) {
        return Long.compareUnsigned(first, point) <= 0 && Long.compareUnsigned(point, last) <= 0;
    }

    /** How many points it holds, less one (so that {@link #ALL} fits): unsigned. */
    public long spanMinusOne() {
        return last - first;
    }

    @Override
    public String toString() {
        return hex(first) + "-" + hex(last);
    }

    static String hex(long point) {
        return String.format("%016x", point);
    }
}
