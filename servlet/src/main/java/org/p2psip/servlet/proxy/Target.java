package org.p2psip.servlet.proxy;

import java.util.List;

import javax.sip.address.URI;

/**
 * One place to forward a request to (RFC 3261 §16.5): the new
 * Request-URI, and the Path values (RFC 3327) that become Route headers.
 *
 * @param uri   the Request-URI of the forwarded copy
 * @param path  route values to push in front of any existing Route set
 */
record Target(URI uri, List<String> path) {

    Target {
        path = List.copyOf(path);
    }

    static Target direct(URI uri) {
        return new Target(uri, List.of());
    }
}
