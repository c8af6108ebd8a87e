package org.p2psip.servlet.proxy;

import java.util.List;

import javax.sip.address.URI;

/**
 * One place to forward a request to (RFC 3261 §16.5): the new
 * Request-URI, the Path values (RFC 3327) that become Route headers, and
 * the same UA instance's other flows (RFC 5626 §7), tried in turn in this
 * branch's place while it fails with 430 (Flow Failed).
 *
 * @param uri        the Request-URI of the forwarded copy
 * @param path       route values to push in front of any existing Route set
 * @param otherFlows the instance's other registrations, in the order to try them
 */
record Target(URI uri, List<String> path, List<Target> otherFlows) {

    Target {
        path = List.copyOf(path);
        otherFlows = List.copyOf(otherFlows);
    }

    Target(URI uri, List<String> path) {
        this(uri, path, List.of());
    }

    static Target direct(URI uri) {
        return new Target(uri, List.of());
    }

    /** The next flow to try after this one failed with 430, carrying the rest; null when there is none. */
    Target nextFlow() {
        if (otherFlows.isEmpty()) {
            return null;
        }
        Target next = otherFlows.get(0);
        return new Target(next.uri(), next.path(), otherFlows.subList(1, otherFlows.size()));
    }
}
