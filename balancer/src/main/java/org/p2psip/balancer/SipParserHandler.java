package org.p2psip.balancer;

import org.p2psip.sip.wire.MalformedSipException;
import org.p2psip.sip.wire.SipFrame;
import org.p2psip.sip.wire.SipParser;

import java.util.List;

import io.netty.channel.ChannelHandler.Sharable;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.MessageToMessageDecoder;

/**
 * Turns frames into {@link SipMessage}s with {@link SipParser}; a frame
 * that is not valid SIP is dropped and counted, never forwarded. A bad
 * message on TCP was still framed correctly, so the connection stays open.
 * What is wrong with it is logged through {@link BadInputReporter}: one
 * escaped line per source per interval at most.
 */
@Sharable
public final class SipParserHandler extends MessageToMessageDecoder<SipFrame> {

    private final BalancerCounters counters;
    private final BadInputReporter bad;

    public SipParserHandler(BalancerCounters counters) {
        this(counters, BadInputReporter.standard());
    }

    public SipParserHandler(BalancerCounters counters, BadInputReporter bad) {
        this.counters = counters;
        this.bad = bad;
    }

    @Override
    protected void decode(ChannelHandlerContext ctx, SipFrame frame, List<Object> out) {
        try {
            out.add(SipParser.parse(frame));
        } catch (MalformedSipException e) {
            counters.countMalformed();
            bad.report(frame.sender(), e.getMessage(), frame.bytes(), frame.bytes().length);
        }
    }
}
