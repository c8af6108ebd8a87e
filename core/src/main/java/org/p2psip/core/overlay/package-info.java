/**
 * The overlay transport Chord and Kademlia share: length-prefixed, versioned
 * binary frames, an HMAC-SHA256 over every frame with the cluster secret,
 * request/response correlation with timeouts. No type in here leaks into the
 * DHT SPI; the backends speak to it through
 * {@link org.p2psip.core.overlay.NettyOverlayTransport#request} and an
 * {@link org.p2psip.core.overlay.OverlayRequestHandler}.
 *
 * <p>The pipeline, one job per handler:
 * length framing, then {@link org.p2psip.core.overlay.FrameVerifier} /
 * {@link org.p2psip.core.overlay.FrameSigner} (authentication), then
 * {@link org.p2psip.core.overlay.OverlayFrameCodec} (header layout and
 * version), then {@link org.p2psip.core.overlay.OverlayDispatcher}
 * (correlation and hand-off to the backend). Everything below the length
 * framing works on whole frames, so a datagram transport can reuse it.
 */
package org.p2psip.core.overlay;
