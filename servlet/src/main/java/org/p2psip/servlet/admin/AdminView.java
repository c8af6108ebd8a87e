package org.p2psip.servlet.admin;

import java.util.Objects;

import org.p2psip.core.dht.Dht;
import org.p2psip.core.location.LocationService;
import org.p2psip.core.metrics.SipTraffic;
import org.p2psip.core.net.HostPort;

/**
 * What the admin endpoint reads and changes on behalf of {@code p2psip
 * status} and {@code p2psip aor}: the node's SIP address, its DHT (who owns a
 * key, what this node owns and holds), its location service (an AOR's
 * bindings) and its SIP traffic counters.
 */
public record AdminView(HostPort sip, Dht dht, LocationService locations, SipTraffic traffic) {

    public AdminView {
        Objects.requireNonNull(sip, "sip");
        Objects.requireNonNull(dht, "dht");
        Objects.requireNonNull(locations, "locations");
        Objects.requireNonNull(traffic, "traffic");
    }
}
