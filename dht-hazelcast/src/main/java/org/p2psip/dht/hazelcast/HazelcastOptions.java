package org.p2psip.dht.hazelcast;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.TreeMap;

import org.p2psip.core.dht.DhtException;
import org.p2psip.core.overlay.OverlaySecret;

/**
 * The backend's {@code --dht-option} settings, validated up front so a typo
 * is a one-line error instead of a silently ignored key.
 *
 * <ul>
 *   <li>{@code overlay-secret} — the cluster secret (the node command passes
 *       {@code --cluster-secret} here). The Hazelcast cluster name is derived from it
 *       (see {@link #hazelcastClusterName()}), and every member proves it knows it when
 *       it joins ({@link MemberJoinProof}).</li>
 *   <li>{@code cluster-name} — the cluster's name (default {@value #DEFAULT_CLUSTER_NAME});
 *       members with different names never join each other.</li>
 *   <li>{@code client=true} — connect to {@code bootstrap} as a Hazelcast client instead of
 *       embedding a member.</li>
 *   <li>{@code client-port=PORT} — a member also accepts Hazelcast clients (nodes started
 *       with {@code --dht-client}) on this port of its overlay host. Without it a member
 *       speaks the member protocol only, so no client can connect at all.</li>
 *   <li>{@code start-timeout-seconds} — how long start-up may take before it fails
 *       (default {@value #DEFAULT_START_TIMEOUT_SECONDS}).</li>
 *   <li>{@code hazelcast.*} — passed to Hazelcast verbatim as a property, overriding this
 *       backend's defaults (e.g. {@code hazelcast.max.no.heartbeat.seconds}).</li>
 * </ul>
 */
record HazelcastOptions(String clusterName, Optional<String> secret, boolean client, OptionalInt clientPort,
                        Duration startTimeout, Map<String, String> hazelcastProperties) {

    static final String CLUSTER_NAME = "cluster-name";
    static final String CLIENT = "client";
    static final String CLIENT_PORT = "client-port";
    static final String START_TIMEOUT_SECONDS = "start-timeout-seconds";
    static final String HAZELCAST_PREFIX = "hazelcast.";

    static final String DEFAULT_CLUSTER_NAME = "p2psip";
    static final int DEFAULT_START_TIMEOUT_SECONDS = 15;

    static final String OVERLAY_SECRET = "overlay-secret";

    /** Hex digits of the derived part of the cluster name: 128 bits, past guessing. */
    static final int DERIVED_NAME_HEX_DIGITS = 32;
    private static final String NAME_LABEL = "p2psip hazelcast cluster name";

    HazelcastOptions {
        Objects.requireNonNull(clusterName, "clusterName");
        Objects.requireNonNull(secret, "secret");
        Objects.requireNonNull(clientPort, "clientPort");
        hazelcastProperties = Map.copyOf(hazelcastProperties);
        if (secret.isPresent() && secret.get().isEmpty()) {
            throw new DhtException("hazelcast option overlay-secret must not be empty");
        }
    }

    /**
     * The name Hazelcast members and clients must present to join or connect.
     * With a secret it is {@code clusterName-hex(HMAC-SHA256(secret, label ||
     * clusterName))[:32]}, so different clusters sharing a secret stay apart
     * and a stranger cannot guess it. It travels in the clear on the overlay
     * network, so it is not what keeps a watcher of that network out: members
     * also show a {@link MemberJoinProof}, and the client protocol is closed
     * unless {@code client-port} opens it (a client then needs only this name:
     * open it on a network only the nodes reach). Without a secret it is the
     * plain cluster name. Never log it.
     */
    String hazelcastClusterName() {
        return secret.map(s -> clusterName + "-" + HexFormat.of().formatHex(OverlaySecret.of(s)
                .derive(NAME_LABEL, clusterName.getBytes(StandardCharsets.UTF_8)))
                .substring(0, DERIVED_NAME_HEX_DIGITS)).orElse(clusterName);
    }

    @Override
    public String toString() {
        // Neither the secret nor the name derived from it may reach a log.
        return "HazelcastOptions[clusterName=" + clusterName + ", secret=" + (secret.isPresent() ? "(set)" : "(none)")
                + ", client=" + client + ", clientPort=" + clientPort + ", startTimeout=" + startTimeout + ", hazelcastProperties="
                + hazelcastProperties + "]";
    }

    /** @throws DhtException naming the offending key and what is accepted */
    static HazelcastOptions parse(Map<String, String> options) {
        String clusterName = DEFAULT_CLUSTER_NAME;
        Optional<String> secret = Optional.empty();
        boolean client = false;
        OptionalInt clientPort = OptionalInt.empty();
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
                case CLIENT_PORT -> {
                    int port = positiveInt(key, value);
                    if (port > 65_535) {
                        throw new DhtException("hazelcast option client-port must be a port (1-65535), not '"
                                + value + "'");
                    }
                    clientPort = OptionalInt.of(port);
                }
                case START_TIMEOUT_SECONDS -> startTimeout = Duration.ofSeconds(positiveInt(key, value));
                case OVERLAY_SECRET -> {
                    // Not trimmed: the secret is what the operator gave, byte for byte.
                    String raw = option.getValue() == null ? "" : option.getValue();
                    if (raw.isEmpty()) {
                        throw new DhtException("hazelcast option overlay-secret must not be empty");
                    }
                    secret = Optional.of(raw);
                }
                default -> {
                    if (!key.startsWith(HAZELCAST_PREFIX)) {
                        throw new DhtException("unknown hazelcast option '" + key + "' (known: " + OVERLAY_SECRET
                                + ", " + CLUSTER_NAME + ", " + CLIENT + ", " + CLIENT_PORT + ", " + START_TIMEOUT_SECONDS + ", hazelcast.*)");
                    }
                    properties.put(key, value);
                }
            }
        }
        if (client && clientPort.isPresent()) {
            throw new DhtException("hazelcast option client-port is for members; a client (client=true) listens on"
                    + " nothing");
        }
        return new HazelcastOptions(clusterName, secret, client, clientPort, startTimeout, properties);
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
