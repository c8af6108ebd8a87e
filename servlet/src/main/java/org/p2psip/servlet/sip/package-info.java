/**
 * SIP plumbing on top of JAIN-SIP that the node's registrar, proxy and
 * authenticator share. {@link org.p2psip.servlet.sip.SipEndpoint} is the one
 * place responses leave from, and never throws;
 * {@link org.p2psip.servlet.sip.SelfAddress} is the address the node
 * recognises as itself in Route (RFC 3261 §16.4);
 * {@link org.p2psip.servlet.sip.HeaderScreen} finds the headers the stack
 * failed to parse and would otherwise treat as absent.
 * {@link org.p2psip.servlet.sip.DhtAdmission} refuses DHT work beyond what the
 * overlay can carry with 503 and Retry-After (§21.5.4), with an RFC 7339
 * share for the balancer, so load is shed before clients time out.
 */
package org.p2psip.servlet.sip;
