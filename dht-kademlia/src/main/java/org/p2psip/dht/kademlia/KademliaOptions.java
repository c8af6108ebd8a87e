package org.p2psip.dht.kademlia;

import java.math.BigInteger;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

import org.p2psip.core.dht.BackendOptions;
import org.p2psip.core.dht.DhtException;

/**
 * The kademlia backend's {@code --dht-option KEY=VALUE} settings.
 *
 * @param secret           {@code overlay-secret}: the cluster secret every datagram is authenticated with
 * @param secretGiven      whether the operator set it
 * @param nodeId           {@code node-id} (hex): overrides SHA-1 of the overlay address
 * @param k                {@code k}: bucket size and lookup width (default 20, as in the paper)
 * @param alpha            {@code alpha}: lookup parallelism (default 3)
 * @param republishEvery   {@code republish-ms}: how often every stored value is re-stored at the closest nodes, the
 *                         safety net behind the hand-over on each membership change (default an hour, §2.5's)
 * @param refreshEvery     {@code refresh-ms}: a bucket without a lookup for this long is refreshed
 * @param rpcTimeout       {@code rpc-timeout-ms}: a peer silent this long (after retries) counts as dead
 * @param retryEvery       {@code retry-ms}: first datagram retransmission interval (doubling)
 * @param operationTimeout {@code operation-timeout-ms}: a get/put gives up after retrying this long
 * @param startTimeout     {@code start-timeout-seconds}: bound on bind + join
 * @param maxPayloadBytes  {@code max-frame-bytes}: largest overlay payload
 */
public record KademliaOptions(String secret, boolean secretGiven, Optional<BigInteger> nodeId, int k, int alpha,
                              Duration republishEvery, Duration refreshEvery, Duration rpcTimeout,
                              Duration retryEvery, Duration operationTimeout, Duration startTimeout,
                              int maxPayloadBytes) {

    static final String DEFAULT_SECRET = "p2psip-unconfigured-overlay-secret";
    private static final Set<String> KNOWN = Set.of("overlay-secret", "node-id", "k", "alpha", "republish-ms",
            "refresh-ms", "rpc-timeout-ms", "retry-ms", "operation-timeout-ms", "start-timeout-seconds",
            "max-frame-bytes");

    public static KademliaOptions parse(Map<String, String> options) {
        for (String key : options.keySet()) {
            if (!KNOWN.contains(key)) {
                throw new DhtException("unknown kademlia option '" + key + "' (known: " + String.join(", ",
                        KNOWN.stream().sorted().toList()) + ")");
            }
        }
        String secret = options.getOrDefault("overlay-secret", "");
        BackendOptions values = new BackendOptions("kademlia", options);
        Optional<BigInteger> nodeId = values.hexId("node-id", IdSpace.SHA1.size());
        return new KademliaOptions(secret.isEmpty() ? DEFAULT_SECRET : secret, !secret.isEmpty(), nodeId,
                (int) values.positive("k", 20), (int) values.positive("alpha", 3),
                Duration.ofMillis(values.positive("republish-ms", 3_600_000)),
                Duration.ofMillis(values.positive("refresh-ms", 60_000)),
                Duration.ofMillis(values.positive("rpc-timeout-ms", 1_000)),
                Duration.ofMillis(values.positive("retry-ms", 150)),
                Duration.ofMillis(values.positive("operation-timeout-ms", 10_000)),
                Duration.ofSeconds(values.positive("start-timeout-seconds", 15)),
                (int) values.positive("max-frame-bytes", 4 << 20));
    }
}
