package org.p2psip.core.auth;

import java.util.Objects;

/**
 * The parameters of one {@code Authorization} or {@code Proxy-Authorization}
 * header with the Digest scheme (RFC 3261 §22.4, RFC 7616 §3.4), as the SIP
 * stack parsed them, unquoted. An absent parameter is the empty string.
 *
 * @param username  the user name the client authenticates as
 * @param realm     the realm of the challenge it answers
 * @param nonce     the server's nonce it answers
 * @param uri       the digest-uri the response was computed over
 * @param response  the request-digest, hex
 * @param algorithm the algorithm named, empty for MD5 by default
 * @param cnonce    the client nonce (with qop)
 * @param qop       the quality of protection chosen; empty for an RFC 2069 style response
 * @param nc        the nonce count, eight hex digits (with qop)
 * @param opaque    echoed opaque value
 */
public record DigestCredentials(String username, String realm, String nonce, String uri, String response,
                                String algorithm, String cnonce, String qop, String nc, String opaque) {

    public DigestCredentials {
        username = Objects.requireNonNullElse(username, "");
        realm = Objects.requireNonNullElse(realm, "");
        nonce = Objects.requireNonNullElse(nonce, "");
        uri = Objects.requireNonNullElse(uri, "");
        response = Objects.requireNonNullElse(response, "");
        algorithm = Objects.requireNonNullElse(algorithm, "");
        cnonce = Objects.requireNonNullElse(cnonce, "");
        qop = Objects.requireNonNullElse(qop, "");
        nc = Objects.requireNonNullElse(nc, "");
        opaque = Objects.requireNonNullElse(opaque, "");
    }
}
