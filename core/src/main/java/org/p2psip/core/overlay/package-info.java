/**
 * The overlay transport Chord and Kademlia share: length-prefixed, versioned
 * binary frames, authenticated with fresh keys derived from the cluster
 * secret so that no frame is accepted twice, request/response correlation
 * with timeouts. No type in here leaks into the
 * DHT SPI; the backends speak to it through
 * {@link org.p2psip.core.overlay.NettyOverlayTransport#request} and an
 * {@link org.p2psip.core.overlay.OverlayRequestHandler}.
 *
 * <p>The TCP pipeline, one job per handler:
 * {@link org.p2psip.core.overlay.OverlayHandshake} (the peer proves the
 * secret against fresh nonces before a single frame is read), length
 * framing, {@link org.p2psip.core.overlay.SessionFraming} (every frame
 * sealed with a sequence number and the connection's session key), then
 * {@link org.p2psip.core.overlay.OverlayFrameCodec} (header layout and
 * version), then {@link org.p2psip.core.overlay.OverlayDispatcher}
 * (correlation and hand-off to the backend). The UDP pipeline replaces the
 * first three with datagram framing and
 * {@link org.p2psip.core.overlay.DatagramAuthenticator} (timestamp, nonce and
 * destination under the MAC, a bounded window of nonces seen) and reuses
 * the rest, which works on whole frames.
 */
package org.p2psip.core.overlay;
