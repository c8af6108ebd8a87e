package org.p2psip.core.testing;

import java.io.IOException;
import java.io.InputStream;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.function.Predicate;

/** Reads from a test's TCP or TLS socket with a deadline, never a sleep. */
public final class SocketReads {

    private SocketReads() {
    }

    /** Everything the peer sends until it closes; fails the test if it is still open at the deadline. */
    public static String untilClosed(Socket s, Duration deadline) throws IOException {
        StringBuilder got = new StringBuilder();
        long end = System.nanoTime() + deadline.toNanos();
        InputStream in = s.getInputStream();
        byte[] buf = new byte[4096];
        while (true) {
            long left = (end - System.nanoTime()) / 1_000_000;
            if (left <= 0) {
                throw new AssertionError("the connection was still open after " + deadline + "; got: " + got);
            }
            s.setSoTimeout((int) left);
            int n;
            try {
                n = in.read(buf);
            } catch (SocketTimeoutException e) {
                continue;
            } catch (IOException e) {
                return got.toString();
            }
            if (n < 0) {
                return got.toString();
            }
            got.append(new String(buf, 0, n, StandardCharsets.ISO_8859_1));
        }
    }

    /** Whether the peer closes {@code s} within {@code deadline}. */
    public static boolean closedWithin(Socket s, Duration deadline) throws IOException {
        try {
            untilClosed(s, deadline);
            return true;
        } catch (AssertionError e) {
            return false;
        }
    }

    /** What arrives until a whole header section is in; what arrived so far at the deadline or close. */
    public static String headerSection(Socket s, Duration deadline) throws IOException {
        return readUntil(s, deadline, got -> got.contains("\r\n\r\n"));
    }

    /**
     * How many times {@code marker} arrives before the deadline or the peer
     * closes, counting up to {@code wanted}; a read that fails (a TLS record
     * that does not decrypt, say) fails the caller.
     */
    public static int untilCount(Socket s, String marker, int wanted, Duration deadline) throws IOException {
        return occurrences(readUntil(s, deadline, got -> occurrences(got, marker) >= wanted), marker);
    }

    private static String readUntil(Socket s, Duration deadline, Predicate<String> done) throws IOException {
        StringBuilder got = new StringBuilder();
        long end = System.nanoTime() + deadline.toNanos();
        InputStream in = s.getInputStream();
        byte[] buf = new byte[4096];
        while (!done.test(got.toString())) {
            long left = (end - System.nanoTime()) / 1_000_000;
            if (left <= 0) {
                break;
            }
            s.setSoTimeout((int) left);
            int n;
            try {
                n = in.read(buf);
            } catch (SocketTimeoutException e) {
                break;
            }
            if (n < 0) {
                break;
            }
            got.append(new String(buf, 0, n, StandardCharsets.ISO_8859_1));
        }
        return got.toString();
    }

    private static int occurrences(String text, String marker) {
        int count = 0;
        for (int at = text.indexOf(marker); at >= 0; at = text.indexOf(marker, at + 1)) {
            count++;
        }
        return count;
    }
}
