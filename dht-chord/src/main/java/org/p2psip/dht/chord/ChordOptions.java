package org.p2psip.dht.chord;

import java.math.BigInteger;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

import org.p2psip.core.dht.BackendOptions;
import org.p2psip.core.dht.DhtException;

/**
 * The chord backend's {@code --dht-option KEY=VALUE} settings.
 *
 * @param secret          {@code overlay-secret}: the cluster secret every frame is authenticated with
 * @param secretGiven     whether the operator set it (a default secret authenticates nothing)
 * @param nodeId          {@code node-id} (hex): the ring id, instead of one in the widest gap a seed knows (or SHA-1 of the overlay address)
 * @param successors      {@code successors}: successor-list length r (default max(4, replicas + 1))
 * @param stabilizeEvery  {@code stabilize-ms}: period of stabilize / check-predecessor / fix-finger
 * @param rpcTimeout      {@code rpc-timeout-ms}: a peer silent this long counts as dead
 * @param operationTimeout {@code operation-timeout-ms}: a get/put gives up after retrying this long
 * @param startTimeout    {@code start-timeout-seconds}: bound on bind + join
 * @param maxPayloadBytes {@code max-frame-bytes}: largest overlay payload
 */
public record ChordOptions(String secret, boolean secretGiven, Optional<BigInteger> nodeId, int successors,
                           Duration stabilizeEvery, Duration rpcTimeout, Duration operationTimeout,
                           Duration startTimeout, int maxPayloadBytes) {

    static final String DEFAULT_SECRET = "p2psip-unconfigured-overlay-secret";
    private static final Set<String> KNOWN = Set.of("overlay-secret", "node-id", "successors", "stabilize-ms",
            "rpc-timeout-ms", "operation-timeout-ms", "start-timeout-seconds", "max-frame-bytes");

    public static ChordOptions parse(Map<String, String> options, int replicas) {
        for (String k : options.keySet()) {
            if (!KNOWN.contains(k)) {
                throw new DhtException("unknown chord option '" + k + "' (known: " + String.join(", ",
                        KNOWN.stream().sorted().toList()) + ")");
            }
        }
        String secret = options.getOrDefault("overlay-secret", "");
        BackendOptions values = new BackendOptions("chord", options);
        Optional<BigInteger> nodeId = values.hexId("node-id", IdSpace.SHA1.size());
        int successors = (int) values.positive("successors", Math.max(4, replicas + 1));
        if (successors < replicas) {
            throw new DhtException("chord option successors (" + successors + ") must be at least --replicas ("
                    + replicas + ")");
        }
        return new ChordOptions(secret.isEmpty() ? DEFAULT_SECRET : secret, !secret.isEmpty(), nodeId, successors,
                Duration.ofMillis(values.positive("stabilize-ms", 500)),
                Duration.ofMillis(values.positive("rpc-timeout-ms", 1000)),
                Duration.ofMillis(values.positive("operation-timeout-ms", 10_000)),
                Duration.ofSeconds(values.positive("start-timeout-seconds", 15)),
                (int) values.positive("max-frame-bytes", 4 << 20));
    }
}
