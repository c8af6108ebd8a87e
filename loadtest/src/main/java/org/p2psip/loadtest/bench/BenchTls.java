package org.p2psip.loadtest.bench;

import java.util.Objects;

import org.p2psip.core.tls.TlsMaterial;

/**
 * The TLS side of a run (RFC 3261 §26.2): whom the lanes trust when they
 * speak TLS to the target, and which certificate the built-in UAS presents
 * when the target reaches it over TLS.
 *
 * @param trust       checks the target's certificate
 * @param uasMaterial the UAS's certificate chain and key; null generates a self-signed one in memory
 *                    (which a target checking its peers will refuse: give the cluster's own pair to be trusted)
 */
public record BenchTls(TlsTrust trust, TlsMaterial uasMaterial) {

    /** The JDK's authorities; a self-signed UAS certificate if one is needed. */
    public static final BenchTls DEFAULT = new BenchTls(TlsTrust.jdkDefaults(), null);

    public BenchTls {
        Objects.requireNonNull(trust, "trust");
    }
}
