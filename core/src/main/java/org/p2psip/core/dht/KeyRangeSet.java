package org.p2psip.core.dht;

import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.List;

/**
 * A set of {@linkplain KeyPlacement#point points}, kept as sorted, disjoint
 * ranges with no two adjacent: the part of the key space one node owns, as
 * it tells the balancer. Built from any ranges, which it sorts and merges.
 *
 * <p>Its text form, used in the {@code P2psip-Owns} header, is the ranges
 * as {@code first-last} in 16 hex digits, comma-separated, or {@code none}.
 */
public record KeyRangeSet(List<KeyRange> ranges) {

    /** The most ranges a text form may hold: a Hazelcast member of a large cluster owns a few hundred. */
    public static final int MAX_RANGES = 4096;
    public static final KeyRangeSet NONE = new KeyRangeSet(List.of());
    public static final KeyRangeSet ALL = new KeyRangeSet(List.of(KeyRange.ALL));

    public KeyRangeSet {
        ranges = normalized(ranges);
    }

    public static KeyRangeSet of(Collection<KeyRange> ranges) {
        return new KeyRangeSet(List.copyOf(ranges));
    }

    /**
     * The clockwise arc after {@code from} up to and including {@code to},
     * wrapping past the top of the space; the whole circle when they are
     * equal (a Chord node that is its own predecessor owns everything).
     */
    public static KeyRangeSet arc(long from, long to) {
        if (from == to) {
            return ALL;
        }
        if (Long.compareUnsigned(from, to) < 0) {
            return new KeyRangeSet(List.of(new KeyRange(from + 1, to)));
        }
        List<KeyRange> parts = new ArrayList<>(2);
        if (from != -1L) {
            parts.add(new KeyRange(from + 1, -1L));
        }
        parts.add(new KeyRange(0, to));
        return new KeyRangeSet(parts);
    }

    public boolean isEmpty() {
        return ranges.isEmpty();
    }

    public boolean contains(long point) {
        int lo = 0;
        int hi = ranges.size() - 1;
        while (lo <= hi) {
            int mid = (lo + hi) >>> 1;
            KeyRange r = ranges.get(mid);
            if (Long.compareUnsigned(point, r.first()) < 0) {
                hi = mid - 1;
            } else if (Long.compareUnsigned(point, r.last()) > 0) {
                lo = mid + 1;
            } else {
                return true;
            }
        }
        return false;
    }

    /** The share of the whole key space it covers, between 0 and 1. */
    public double share() {
        double points = 0;
        for (KeyRange r : ranges) {
            points += unsigned(r.spanMinusOne()) + 1;
        }
        return points / 0x1p64;
    }

    /** The text form: {@code first-last,...} or {@code none}. */
    public String format() {
        if (ranges.isEmpty()) {
            return "none";
        }
        StringBuilder b = new StringBuilder(ranges.size() * 34);
        for (KeyRange r : ranges) {
            if (b.length() > 0) {
                b.append(',');
            }
            b.append(r);
        }
        return b.toString();
    }

    /** @throws IllegalArgumentException naming what is wrong with {@code text} */
    public static KeyRangeSet parse(String text) {
        String t = text.strip();
        if (t.equals("none")) {
            return NONE;
        }
        String[] parts = t.split(",", -1);
        if (parts.length > MAX_RANGES) {
            throw new IllegalArgumentException("more than " + MAX_RANGES + " key ranges");
        }
        List<KeyRange> out = new ArrayList<>(parts.length);
        for (String part : parts) {
            String p = part.strip();
            int dash = p.indexOf('-');
            if (dash <= 0) {
                throw new IllegalArgumentException("not a key range: '" + p + "' (want FIRST-LAST in hex)");
            }
            out.add(new KeyRange(hex(p.substring(0, dash)), hex(p.substring(dash + 1))));
        }
        return new KeyRangeSet(out);
    }

    @Override
    public String toString() {
        return format();
    }

    private static long hex(String digits) {
        if (digits.isEmpty() || digits.length() > 16) {
            throw new IllegalArgumentException("not a 64-bit hex point: '" + digits + "'");
        }
        try {
            return Long.parseUnsignedLong(digits, 16);
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("not a 64-bit hex point: '" + digits + "'");
        }
    }

    private static double unsigned(long v) {
        return v >= 0 ? v : v + 0x1p64;
    }

    private static List<KeyRange> normalized(List<KeyRange> ranges) {
        List<KeyRange> sorted = new ArrayList<>(ranges);
        sorted.sort(Comparator.comparing(KeyRange::first, Long::compareUnsigned));
        List<KeyRange> out = new ArrayList<>(sorted.size());
        for (KeyRange r : sorted) {
            if (!out.isEmpty()) {
                KeyRange prev = out.get(out.size() - 1);
                // Overlapping or adjacent: prev ends at the top, or at or past one before r starts.
                if (prev.last() == -1L || Long.compareUnsigned(prev.last() + 1, r.first()) >= 0) {
                    if (Long.compareUnsigned(r.last(), prev.last()) > 0) {
                        out.set(out.size() - 1, new KeyRange(prev.first(), r.last()));
                    }
                    continue;
                }
            }
            out.add(r);
        }
        return List.copyOf(out);
    }
}
