package org.p2psip.dht.hazelcast;

import java.net.UnknownHostException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;

import com.hazelcast.cluster.Address;
import com.hazelcast.instance.impl.DefaultNodeContext;
import com.hazelcast.instance.impl.DefaultNodeExtension;
import com.hazelcast.instance.impl.Node;
import com.hazelcast.instance.impl.NodeExtension;
import com.hazelcast.internal.cluster.impl.JoinMessage;
import com.hazelcast.internal.cluster.impl.JoinRequest;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Makes a member that is the cluster's master check every joiner's
 * {@link MemberJoinProof} before admitting it. Hazelcast asks its node
 * extension to validate each join request on the master and, when that
 * throws, tells the joiner why and leaves it out; this is the one place the
 * open-source edition lets a member refuse another (its own member
 * authentication is an Enterprise feature), so it is reached through
 * Hazelcast's instance-factory entry point rather than public API.
 */
final class JoinProofNodeContext extends DefaultNodeContext {

    private static final Logger LOG = LoggerFactory.getLogger(JoinProofNodeContext.class);
    /** A stranger that keeps knocking is named once per address in this interval. */
    static final Duration LOG_INTERVAL = Duration.ofMinutes(10);
    private static final int MAX_REMEMBERED = 10_000;

    private final MemberJoinProof proof;
    private final Map<String, Instant> lastLogged = new ConcurrentHashMap<>();

    JoinProofNodeContext(MemberJoinProof proof) {
        this.proof = proof;
    }

    @Override
    public NodeExtension createNodeExtension(Node node) {
        return new DefaultNodeExtension(node) {
            @Override
            public void validateJoinRequest(JoinMessage message) {
                super.validateJoinRequest(message);
                check(message);
            }
        };
    }

    private void check(JoinMessage message) {
        if (!(message instanceof JoinRequest request)) {
            // Split-brain probes carry no attributes; a member that merges back joins with a JoinRequest.
            return;
        }
        String address = addressOf(request.getAddress());
        Optional<String> refusal = proof.refusal(address, request.getAttributes());
        if (refusal.isEmpty()) {
            return;
        }
        String why = "refused hazelcast member " + address + ": " + refusal.get();
        Instant now = Clock.systemUTC().instant();
        Instant last = lastLogged.get(address);
        if (last == null || now.isAfter(last.plus(LOG_INTERVAL))) {
            if (lastLogged.size() >= MAX_REMEMBERED) {
                // Many addresses knocking: start over rather than grow without bound.
                lastLogged.clear();
            }
            lastLogged.put(address, now);
            LOG.warn("{}; it stays out of the cluster", why);
        }
        throw new SecurityException(why);
    }

    /** The joiner's claimed address as {@code IP:PORT}, the form its proof was made for. */
    static String addressOf(Address address) {
        try {
            return address.getInetAddress().getHostAddress() + ":" + address.getPort();
        } catch (UnknownHostException e) {
            return address.getHost() + ":" + address.getPort();
        }
    }
}
