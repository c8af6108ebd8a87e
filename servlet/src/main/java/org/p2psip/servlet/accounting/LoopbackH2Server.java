package org.p2psip.servlet.accounting;

/**
 * Keeps the TCP server H2 starts for its automatic mixed mode
 * ({@code AUTO_SERVER=TRUE}, how {@code acct export} reads a running node's
 * embedded accounting) on the loopback interface. H2 binds that server to
 * every interface unless the system property {@value #PROPERTY} names an
 * address, and reads the property once, when its first class loads; so it
 * is set before any H2 class is touched: by the command line's entry point
 * and again here, for nodes started inside another program. A value set
 * by the operator stays.
 */
public final class LoopbackH2Server {

    static final String PROPERTY = "h2.bindAddress";

    private LoopbackH2Server() {
    }

    /** Sets {@value #PROPERTY} to 127.0.0.1 unless it has a value. */
    public static void bindToLoopback() {
        if (System.getProperty(PROPERTY) == null) {
            System.setProperty(PROPERTY, "127.0.0.1");
        }
    }
}
