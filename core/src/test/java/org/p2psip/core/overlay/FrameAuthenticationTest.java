package org.p2psip.core.overlay;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import java.nio.charset.StandardCharsets;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import io.netty.channel.embedded.EmbeddedChannel;
import org.junit.jupiter.api.Test;

/** {@link FrameSigner} and {@link FrameVerifier}, each in an EmbeddedChannel of its own. */
class FrameAuthenticationTest {

    private final Set<String> logged = ConcurrentHashMap.newKeySet();
    private final AtomicLong dropped = new AtomicLong();

    private byte[] sign(OverlaySecret secret, byte[] body) {
        EmbeddedChannel signer = new EmbeddedChannel(new FrameSigner(secret));
        signer.writeOutbound(Unpooled.wrappedBuffer(body));
        ByteBuf out = signer.readOutbound();
        byte[] bytes = ByteBufUtil.getBytes(out);
        out.release();
        return bytes;
    }

    private byte[] verify(OverlaySecret secret, byte[] signed) {
        EmbeddedChannel verifier = new EmbeddedChannel(new FrameVerifier(secret, logged, dropped));
        verifier.writeInbound(Unpooled.wrappedBuffer(signed));
        ByteBuf in = verifier.readInbound();
        if (in == null) {
            return null;
        }
        byte[] bytes = ByteBufUtil.getBytes(in);
        in.release();
        return bytes;
    }

    @Test
    void signedFrameCarriesAMacAndVerifiesWithTheSameSecret() {
        OverlaySecret secret = OverlaySecret.of("cluster-secret");
        byte[] body = "hello ring".getBytes(StandardCharsets.UTF_8);
        byte[] signed = sign(secret, body);
        assertEquals(body.length + OverlaySecret.MAC_BYTES, signed.length);
        assertArrayEquals(body, verify(secret, signed));
        assertEquals(0, dropped.get());
    }

    @Test
    void frameSignedWithAnotherSecretIsDroppedAndTheHostLoggedOnce() {
        byte[] forged = sign(OverlaySecret.of("wrong"), "join me".getBytes(StandardCharsets.UTF_8));
        for (int i = 0; i < 3; i++) {
            assertNull(verify(OverlaySecret.of("cluster-secret"), forged));
        }
        assertEquals(3, dropped.get());
        assertEquals(1, logged.size(), "one log entry per host, not per frame");
    }

    @Test
    void tamperedOrTruncatedFramesAreDropped() {
        OverlaySecret secret = OverlaySecret.of("cluster-secret");
        byte[] signed = sign(secret, "put x".getBytes(StandardCharsets.UTF_8));
        signed[2] ^= 1;
        assertNull(verify(secret, signed));
        assertNull(verify(secret, new byte[OverlaySecret.MAC_BYTES - 1]));
        assertEquals(2, dropped.get());
    }
}
