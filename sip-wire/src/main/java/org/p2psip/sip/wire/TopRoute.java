package org.p2psip.sip.wire;

/**
 * One route-param of a Route header (RFC 3261 §20.34), the first one as
 * parsed, later ones on request ({@link SipParser#nextRoute}), so a
 * balancer named in a route set can remove its own entries (§16.4)
 * instead of sending the request round to itself.
 *
 * @param uri       the URI inside the angle brackets
 * @param header    the Route header line holding it
 * @param start     offset of this route-param in that line
 * @param nextStart offset of the next route-param in the same line, or -1 when it is the line's last
 */
public record TopRoute(String uri, HeaderSpan header, int start, int nextStart) {
}
