package org.p2psip.servlet.lb;

/**
 * The first route-param of the first Route header (RFC 3261 §20.34), so a
 * balancer named in a preloaded route set can remove its own entry
 * (§16.4) instead of sending the request round to itself.
 *
 * @param uri       the URI inside the angle brackets
 * @param header    the Route header line holding it
 * @param nextStart offset of the next route-param in the same line, or -1 when it is the only one
 */
public record TopRoute(String uri, HeaderSpan header, int nextStart) {
}
