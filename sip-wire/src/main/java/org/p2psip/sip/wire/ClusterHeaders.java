package org.p2psip.sip.wire;

/**
 * The headers a node's answer to the balancer's OPTIONS probe carries:
 * the contract between the two, so neither has to import the other. Both
 * are extension headers in the sense of RFC 3261 §20 (a proxy or phone
 * that sees one ignores it).
 */
public final class ClusterHeaders {

    /** The key ranges a node owns ({@code KeyRangeSet}'s text form). */
    public static final String OWNS = "P2psip-Owns";
    /** The domains the cluster serves, comma-separated, the default first. */
    public static final String DOMAINS = "P2psip-Domains";
    /** The host:port values that are the default domain, comma-separated. */
    public static final String ALIASES = "P2psip-Aliases";
    /** In a node's 503 to a probe, {@code no}: the node is warming up and not ready yet. */
    public static final String READY = "P2psip-Ready";

    private ClusterHeaders() {
    }
}
