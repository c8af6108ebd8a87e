/**
 * The project's SIP wire codec, shared by the balancer and the node: a
 * minimal RFC 3261 parser ({@link org.p2psip.sip.wire.SipParser}) that reads
 * the start line and the headers routing needs as offsets into the bytes,
 * edits made in place ({@link org.p2psip.sip.wire.MessageEdits}), stateless
 * responses (RFC 3261 §8.2.6), the limits a frame must keep and the
 * headers of the node-balancer contract. It depends on no other module of
 * the project.
 */
package org.p2psip.sip.wire;
