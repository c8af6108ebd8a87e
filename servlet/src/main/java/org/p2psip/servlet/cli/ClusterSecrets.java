package org.p2psip.servlet.cli;

import java.util.Optional;

/**
 * Where the cluster secret comes from when no flag gives it: the
 * environment, which stays out of the process list. The first name is the
 * one to use; the second is the name it had when it protected only the
 * overlay.
 */
public final class ClusterSecrets {

    public static final String ENV = "P2PSIP_CLUSTER_SECRET";
    public static final String LEGACY_ENV = "P2PSIP_OVERLAY_SECRET";

    private ClusterSecrets() {
    }

    /** The flag's value if given, else the environment's. */
    public static Optional<String> resolve(String flag) {
        if (flag != null && !flag.isEmpty()) {
            return Optional.of(flag);
        }
        for (String name : new String[] {ENV, LEGACY_ENV}) {
            String v = System.getenv(name);
            if (v != null && !v.isEmpty()) {
                return Optional.of(v);
            }
        }
        return Optional.empty();
    }
}
