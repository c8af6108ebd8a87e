package org.p2psip.core.overlay;

import java.util.concurrent.CompletableFuture;

/**
 * What a backend does with an authenticated request: answer with a payload,
 * or fail, which the requester sees as an {@link OverlayException}. It must
 * not block: it is called on a Netty I/O thread and should hand off.
 */
@FunctionalInterface
public interface OverlayRequestHandler {

    CompletableFuture<byte[]> handle(int type, byte[] payload);
}
