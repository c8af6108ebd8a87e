/**
 * Who may do what: SIP digest authentication (RFC 3261 §22, RFC 7616, RFC
 * 8760) with credentials kept in the DHT, stateless nonces that every node
 * of a cluster accepts, nonce-count replay protection, and the relay
 * decision of a proxy that serves a set of domains.
 *
 * <p>The rules are pure functions of their inputs (time and randomness come
 * in as arguments), tested like {@link org.p2psip.core.location.RegistrarRules};
 * {@link org.p2psip.core.auth.CredentialStore} and
 * {@link org.p2psip.core.auth.NonceCountStore} are the only parts that touch
 * the DHT. Nothing here knows a SIP stack.
 */
package org.p2psip.core.auth;
