package org.p2psip.dht.hazelcast;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

import org.p2psip.core.dht.Dht;
import org.p2psip.core.dht.DhtConfig;
import org.p2psip.core.net.HostPort;

/**
 * A hazelcast node in a process of its own for {@link HazelcastClusterSecretTest}:
 * starts a member on {@code 127.0.0.1:PORT} (Hazelcast clients on
 * {@code CLIENT_PORT}) with the cluster secret from the environment, stores
 * {@code alice} there, prints {@code READY}, and runs until its standard input
 * closes.
 */
public final class SecretMemberMain {

    static final String SECRET_ENV = "P2PSIP_TEST_SECRET";
    static final String KEY = "alice";
    static final String VALUE = "sip:alice@192.0.2.1";

    private SecretMemberMain() {
    }

    public static void main(String[] args) throws Exception {
        int port = Integer.parseInt(args[0]);
        String clientPort = args[1];
        String secret = System.getenv(SECRET_ENV);
        DhtConfig config = new DhtConfig(new HostPort("127.0.0.1", port + 1),
                Optional.of(new HostPort("127.0.0.1", port)), List.of(), 1, Clock.systemUTC(),
                Map.of("overlay-secret", secret, "start-timeout-seconds", "30", "client-port", clientPort));
        try (Dht dht = new HazelcastDhtProvider().start(config).get(40, TimeUnit.SECONDS)) {
            boolean stored = dht.putIfVersion(KEY, Dht.ABSENT, VALUE.getBytes(StandardCharsets.UTF_8),
                    Instant.now().plusSeconds(3600)).get(20, TimeUnit.SECONDS);
            System.out.println(stored ? "READY" : "NOT STORED");
            System.out.flush();
            waitForStdinToClose();
        }
        System.exit(0);
    }

    private static void waitForStdinToClose() {
        try {
            while (System.in.read() >= 0) {
                // the test ends this process by closing our standard input
            }
        } catch (IOException e) {
            // closed
        }
    }
}
