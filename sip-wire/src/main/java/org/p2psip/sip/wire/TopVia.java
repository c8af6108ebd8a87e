package org.p2psip.sip.wire;

import java.util.Map;

/**
 * The first via-parm of the first Via header (RFC 3261 §20.42), parsed far
 * enough to route a response (§18.2.2) and to recognise the balancer's own
 * entry.
 *
 * @param transport  the sent-protocol's transport, upper-case
 * @param host       sent-by host, lower-case, IPv6 without brackets
 * @param port       sent-by port, or -1 when absent
 * @param params     via-params by lower-case name; a parameter without a value maps to ""
 * @param rportEnd   offset just past an empty {@code rport} parameter's name, where "=port" goes (RFC 3581); -1 otherwise
 * @param parmEnd    offset just past this via-parm, where {@code ;received=} goes (§18.2.1)
 * @param header     the Via header line holding it
 * @param nextStart  offset of the next via-parm in the same header line, or -1 when it is the only one
 */
public record TopVia(String transport, String host, int port, Map<String, String> params, int rportEnd,
                     int parmEnd, HeaderSpan header, int nextStart) {

    public TopVia {
        params = Map.copyOf(params);
    }

    /** The branch parameter, or null. */
    public String branch() {
        return params.get("branch");
    }

    /** Whether the client asked for symmetric response routing (RFC 3581 §3). */
    public boolean rport() {
        return params.containsKey("rport");
    }
}
