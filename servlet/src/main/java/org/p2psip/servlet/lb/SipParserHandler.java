package org.p2psip.servlet.lb;

import java.util.List;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.netty.channel.ChannelHandler.Sharable;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.MessageToMessageDecoder;

/**
 * Turns frames into {@link SipMessage}s with {@link SipParser}; a frame
 * that is not valid SIP is dropped and counted, never forwarded. A bad
 * message on TCP was still framed correctly, so the connection stays open.
 */
@Sharable
public final class SipParserHandler extends MessageToMessageDecoder<SipFrame> {

    private static final Logger LOG = LoggerFactory.getLogger(SipParserHandler.class);

    private final BalancerCounters counters;

    public SipParserHandler(BalancerCounters counters) {
        this.counters = counters;
    }

    @Override
    protected void decode(ChannelHandlerContext ctx, SipFrame frame, List<Object> out) {
        try {
            out.add(SipParser.parse(frame));
        } catch (MalformedSipException e) {
            counters.countMalformed();
            LOG.debug("dropped a malformed message from {}: {}", frame.sender(), e.getMessage());
        }
    }
}
