/**
 * TLS material shared by the balancer's TLS listener and the JAIN-SIP
 * node's: PEM certificate chains and keys ({@link org.p2psip.core.tls.TlsMaterial}),
 * TLS 1.2+ engines (RFC 3261 §26, RFC 8996), and a self-signed certificate
 * for clusters started without one ({@link org.p2psip.core.tls.SelfSignedTls}).
 */
package org.p2psip.core.tls;
