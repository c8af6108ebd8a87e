package org.p2psip.dht.hazelcast;

import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.TreeMap;

import org.p2psip.core.dht.DhtException;

/**
 * The backend's {@code --dht-option} settings, validated up front so a typo
 * is a one-line error instead of a silently ignored key.
 *
 * <ul>
 *   <li>{@code cluster-name} — Hazelcast cluster name (default {@value #DEFAULT_CLUSTER_NAME});
 *       members with different names never join each other.</li>
 *   <li>{@code client=true} — connect to {@code bootstrap} as a Hazelcast client instead of
 *       embedding a member.</li>
 *   <li>{@code start-timeout-seconds} — how long start-up may take before it fails
 *       (default {@value #DEFAULT_START_TIMEOUT_SECONDS}).</li>
 *   <li>{@code hazelcast.*} — passed to Hazelcast verbatim as a property, overriding this
 *       backend's defaults (e.g. {@code hazelcast.max.no.heartbeat.seconds}).</li>
 * </ul>
 */
record HazelcastOptions(String clusterName, boolean client, Duration startTimeout,
                        Map<String, String> hazelcastProperties) {

    static final String CLUSTER_NAME = "cluster-name";
    static final String CLIENT = "client";
    static final String START_TIMEOUT_SECONDS = "start-timeout-seconds";
    static final String HAZELCAST_PREFIX = "hazelcast.";

    static final String DEFAULT_CLUSTER_NAME = "p2psip";
    static final int DEFAULT_START_TIMEOUT_SECONDS = 15;

    HazelcastOptions {
        hazelcastProperties = Map.copyOf(hazelcastProperties);
    }

    static final String OVERLAY_SECRET = "overlay-secret";

    /** @throws DhtException naming the offending key and what is accepted */
    static HazelcastOptions parse(Map<String, String> options) {
        String clusterName = DEFAULT_CLUSTER_NAME;
        boolean client = false;
        Duration startTimeout = Duration.ofSeconds(DEFAULT_START_TIMEOUT_SECONDS);
        Map<String, String> properties = new LinkedHashMap<>();
        // Sorted so the first error reported does not depend on map iteration order.
        for (Map.Entry<String, String> option : new TreeMap<>(options).entrySet()) {
            String key = option.getKey();
            String value = option.getValue() == null ? "" : option.getValue().trim();
            switch (key) {
                case CLUSTER_NAME -> {
                    if (value.isEmpty()) {
                        throw new DhtException("hazelcast option cluster-name must not be empty");
                    }
                    clusterName = value;
                }
                case CLIENT -> {
                    if (!value.equalsIgnoreCase("true") && !value.equalsIgnoreCase("false")) {
                        throw new DhtException("hazelcast option client must be true or false, not '" + value + "'");
                    }
                    client = Boolean.parseBoolean(value);
                }
                case START_TIMEOUT_SECONDS -> startTimeout = Duration.ofSeconds(positiveInt(key, value));
                // The node command passes the overlay secret to every backend. Hazelcast's
                // open-source member protocol has no shared-secret authentication to give it
                // to, so it is not used here: the cluster name separates clusters, and the
                // overlay port belongs on a trusted network (README).
                case OVERLAY_SECRET -> { }
                default -> {
                    if (!key.startsWith(HAZELCAST_PREFIX)) {
                        throw new DhtException("unknown hazelcast option '" + key + "' (known: " + CLUSTER_NAME
                                + ", " + CLIENT + ", " + START_TIMEOUT_SECONDS + ", hazelcast.*)");
                    }
                    properties.put(key, value);
                }
            }
        }
        return new HazelcastOptions(clusterName, client, startTimeout, properties);
    }

    private static int positiveInt(String key, String value) {
        try {
            int n = Integer.parseInt(value);
            if (n > 0) {
                return n;
            }
        } catch (NumberFormatException e) {
            // reported below with the key's name
        }
        throw new DhtException("hazelcast option " + key + " must be a positive whole number, not '" + value + "'");
    }
}
