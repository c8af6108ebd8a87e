package org.p2psip.servlet.testing;

import java.time.Clock;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import org.p2psip.core.location.RegistrarPolicy;
import org.p2psip.core.net.HostPort;
import org.p2psip.servlet.node.FrontNode;
import org.p2psip.servlet.node.NodeSettings;
import org.p2psip.servlet.node.NodeStartException;
import org.p2psip.servlet.node.ProtectionSettings;
import org.p2psip.servlet.node.TrustSettings;

/** Nodes of one cluster in this JVM: they share {@code store} ({@link SharedLocalDhtProvider}). */
public final class SharedStoreNodes {

    private SharedStoreNodes() {
    }

    /** A node on free ports serving {@code p2psip.test} without authentication, with an admin endpoint. */
    public static FrontNode withAdmin(String store, String secret) throws NodeStartException {
        return FrontNode.start(new NodeSettings(new HostPort("127.0.0.1", 0), SharedLocalDhtProvider.NAME,
                Optional.empty(), List.of(), 1, Map.of("store", store), RegistrarPolicy.DEFAULT,
                NodeSettings.DEFAULT_DHT_TIMEOUT, NodeSettings.DEFAULT_SIP_THREADS, Clock.systemUTC(),
                TrustSettings.open("p2psip.test").withClusterSecret(secret).withAdmin(new HostPort("127.0.0.1", 0)),
                ProtectionSettings.DEFAULT, Optional.empty(), Optional.empty(), Optional.empty(), Optional.empty()));
    }
}
