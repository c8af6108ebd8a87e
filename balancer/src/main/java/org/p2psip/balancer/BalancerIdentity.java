package org.p2psip.balancer;

import org.p2psip.sip.wire.Transport;

import java.nio.charset.StandardCharsets;
import java.util.Objects;
import java.util.Optional;

import org.p2psip.core.net.HostPort;

/**
 * How the balancer names itself in the messages it touches: the sent-by of
 * its Via entries and a branch prefix unique to this balancer address
 * ({@code z9hG4bK} magic cookie first, RFC 3261 §8.1.1.7), by which it
 * recognises its own Via in a response (§16.7 item 3 / §18.2.2) and in a
 * request that has come round again (a loop, §16.3 item 4).
 *
 * <p>The instance part is a hash of the advertised address, not a random
 * number, so a restarted balancer still recognises responses to requests
 * its predecessor forwarded.
 *
 * @param advertised the address written in Via and expected in Route
 * @param instance   8 hex digits derived from {@code advertised}
 * @param secure     the TLS listener's address, which a client's Route may name too
 * @param nodeSide   the UDP socket requests leave from towards the nodes, named in their Via so that the
 *                   nodes' responses come back to it rather than queue behind clients' requests; absent,
 *                   the advertised address
 */
public record BalancerIdentity(HostPort advertised, String instance, Optional<HostPort> secure,
                               Optional<HostPort> nodeSide) {

    public BalancerIdentity {
        Objects.requireNonNull(advertised, "advertised");
        Objects.requireNonNull(instance, "instance");
        Objects.requireNonNull(secure, "secure");
        Objects.requireNonNull(nodeSide, "nodeSide");
    }

    public static BalancerIdentity of(HostPort advertised) {
        long h = Fnv.hash(advertised.toString());
        return new BalancerIdentity(advertised, String.format("%08x", (int) (h ^ (h >>> 32))), Optional.empty(),
                Optional.empty());
    }

    /** The same identity, also answering to the TLS listener at {@code address}. */
    public BalancerIdentity withSecure(HostPort address) {
        return new BalancerIdentity(advertised, instance, Optional.of(address), nodeSide);
    }

    /** The same identity, sending to the nodes from {@code address}. */
    public BalancerIdentity withNodeSide(HostPort address) {
        return new BalancerIdentity(advertised, instance, secure, Optional.of(address));
    }

    /** Where the nodes send their responses: the node-side socket, else the advertised address. */
    public HostPort nodeSideAddress() {
        return nodeSide.orElse(advertised);
    }

    /** Every branch this balancer writes starts with this. */
    public String branchPrefix() {
        return "z9hG4bKlb" + instance + ".";
    }

    /** Branches of the health checker's OPTIONS start with this. */
    public String probePrefix() {
        return branchPrefix() + "hc.";
    }

    /** To tags of the balancer's own stateless responses start with this (§8.2.6.2). */
    public String tagPrefix() {
        return "lb" + instance;
    }

    /**
     * A complete Via header line for a request forwarded with {@code
     * branchSuffix} and {@code token}. It offers RFC 7339 overload control
     * ({@code oc} without a value, {@code oc-algo="loss"}, §5.1), so a
     * node can ask through its responses for fewer requests.
     */
    public byte[] viaLine(String branchSuffix, String token) {
        return viaLine(Transport.UDP, branchSuffix, token);
    }

    /**
     * The same, for a request sent over {@code transport}: a request going
     * down a client's TLS flow names the TLS listener as its sent-by.
     */
    public byte[] viaLine(Transport transport, String branchSuffix, String token) {
        return viaLine(transport, address(transport), branchSuffix, token);
    }

    /** The Via of a request forwarded to a node: its sent-by is the node-side socket. */
    public byte[] nodeViaLine(String branchSuffix, String token) {
        return viaLine(Transport.UDP, nodeSideAddress(), branchSuffix, token);
    }

    private byte[] viaLine(Transport transport, HostPort sentBy, String branchSuffix, String token) {
        String line = "Via: SIP/2.0/" + transport + " " + sentBy + ";branch=" + branchPrefix()
                + branchSuffix + (token == null ? "" : ";lb=" + token) + ";oc;oc-algo=\"loss\"\r\n";
        return line.getBytes(StandardCharsets.US_ASCII);
    }

    /** Where clients reach this balancer over {@code transport}: the TLS listener for TLS, else the advertised address. */
    public HostPort address(Transport transport) {
        return transport == Transport.TLS ? secure.orElse(advertised) : advertised;
    }

    /** Whether host and port (-1: the default 5060) name this balancer's UDP and TCP address, as its Via does. */
    public boolean isSelf(String host, int port) {
        return advertised.host().equalsIgnoreCase(host) && advertised.port() == (port < 0 ? 5060 : port);
    }

    /**
     * Whether a Route entry at host and port names this balancer: its UDP and
     * TCP address, or its TLS listener (-1 there: the sips default 5061,
     * RFC 3261 §19.1.2), which a phone using the balancer as its outbound
     * proxy over TLS puts first in its Route set.
     */
    public boolean isRoute(String host, int port) {
        return isSelf(host, port) || secure.filter(t -> t.host().equalsIgnoreCase(host)
                && t.port() == (port < 0 ? 5061 : port)).isPresent();
    }

    /** Whether a Via's host and port name this balancer: as a Route may, or as its node-side socket. */
    public boolean isViaOf(String host, int port) {
        return isRoute(host, port) || nodeSide.filter(n -> n.host().equalsIgnoreCase(host)
                && n.port() == (port < 0 ? 5060 : port)).isPresent();
    }
}
