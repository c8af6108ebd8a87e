package org.p2psip.core.testing;

import java.io.IOException;
import java.io.InputStream;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;

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
        StringBuilder got = new StringBuilder();
        long end = System.nanoTime() + deadline.toNanos();
        InputStream in = s.getInputStream();
        byte[] buf = new byte[4096];
        while (!got.toString().contains("\r\n\r\n")) {
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
}
