/**
 * Digest authentication as a front node applies it to JAIN-SIP requests (RFC
 * 3261 §22), on the stack-free rules of {@code org.p2psip.core.auth}.
 * {@link org.p2psip.servlet.auth.DigestAuthenticator} reads the credentials
 * meant for the realm, lets the core rules decide, records the nonce count in
 * the DHT so that a used response is refused on every node, and writes the
 * challenges. {@link org.p2psip.servlet.auth.FailedLogins} holds back online
 * guessing per user and source address, counted in the DHT so all nodes see
 * the same failures; {@link org.p2psip.servlet.auth.UnansweredChallengeLog}
 * reports clients that never answer a challenge.
 */
package org.p2psip.servlet.auth;
