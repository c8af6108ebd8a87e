package org.p2psip.servlet.proxy;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.concurrent.atomic.AtomicLong;

import javax.sip.address.URI;
import javax.sip.header.CSeqHeader;
import javax.sip.header.CallIdHeader;
import javax.sip.header.FromHeader;
import javax.sip.header.Header;
import javax.sip.header.RouteHeader;
import javax.sip.header.ToHeader;
import javax.sip.header.ViaHeader;
import javax.sip.message.Request;

import org.p2psip.servlet.sip.HeaderLists;
import org.p2psip.servlet.sip.SelfAddress;

/**
 * Branch parameters for this proxy's Via and the loop check they enable
 * (RFC 3261 §16.6 item 8 and §16.3 item 4).
 *
 * <p>A branch is {@code z9hG4bK} + a fixed marker + a hash of the fields
 * that identify the request as received + a per-branch counter (for a
 * stateless forward, a digest of the received top Via instead). A request
 * that comes back carrying a Via of ours whose hash equals the one it would
 * get now has not changed on its way round: a loop. A spiral, where the
 * Request-URI (or anything else hashed) changed, hashes differently and is
 * forwarded.
 */
public final class LoopDetection {

    static final String MAGIC = "z9hG4bK";
    /** Starts every branch a p2psip node writes, so any node recognises another's Via. */
    static final String MARKER = MAGIC + "p2p";

    private final SelfAddress self;
    private final AtomicLong counter = new AtomicLong();
    private final String instance = Long.toHexString(System.nanoTime() & 0xFFFFFFL);

    public LoopDetection(SelfAddress self) {
        this.self = self;
    }

    /** A new unique branch for forwarding {@code received}. */
    public String branch(Request received) {
        return MARKER + hash(received) + "." + instance + Long.toHexString(counter.incrementAndGet());
    }

    /**
     * The branch for forwarding {@code received} statelessly: the same for
     * every copy of it, as RFC 3261 §16.11 requires of a stateless proxy.
     * The received top Via identifies the transaction (its branch is unique
     * when it has the magic cookie, §8.1.1.7; otherwise sent-by and the
     * hashed fields stand in), so it takes the counter's place. A UA that
     * matches messages by their bytes, as SIPp does, then takes a
     * retransmitted ACK for one; with a counter it took it for a new,
     * unexpected request and gave up the call.
     */
    public String statelessBranch(Request received) {
        ViaHeader top = (ViaHeader) received.getHeader(ViaHeader.NAME);
        String transaction = top == null ? "" : top.getBranch() + "\n" + top.getHost() + ":" + top.getPort();
        return MARKER + hash(received) + "." + digest(transaction);
    }

    /** Whether {@code received} already passed through here unchanged (482 Loop Detected). */
    public boolean isLoop(Request received) {
        String expected = null;
        for (Header h : HeaderLists.of(received, ViaHeader.NAME)) {
            ViaHeader via = (ViaHeader) h;
            String branch = via.getBranch();
            if (branch == null || !branch.startsWith(MARKER) || !self.isSentBy(via.getHost(), via.getPort())) {
                continue;
            }
            if (expected == null) {
                expected = MARKER + hash(received) + ".";
            }
            if (branch.startsWith(expected)) {
                return true;
            }
        }
        return false;
    }

    /**
     * The fields §16.6 item 8 names: Request-URI, To tag, From tag, Call-ID,
     * CSeq number (not the method, so a CANCEL matches its INVITE), and the
     * Route, Proxy-Require and Proxy-Authorization values.
     */
    static String hash(Request r) {
        StringBuilder b = new StringBuilder(256);
        URI uri = r.getRequestURI();
        b.append(uri).append('\n');
        ToHeader to = (ToHeader) r.getHeader(ToHeader.NAME);
        FromHeader from = (FromHeader) r.getHeader(FromHeader.NAME);
        CallIdHeader callId = (CallIdHeader) r.getHeader(CallIdHeader.NAME);
        CSeqHeader cseq = (CSeqHeader) r.getHeader(CSeqHeader.NAME);
        b.append(to == null ? "" : to.getTag()).append('\n');
        b.append(from == null ? "" : from.getTag()).append('\n');
        b.append(callId == null ? "" : callId.getCallId()).append('\n');
        b.append(cseq == null ? "" : Long.toString(cseq.getSeqNumber())).append('\n');
        appendAll(b, r, RouteHeader.NAME);
        appendAll(b, r, "Proxy-Require");
        appendAll(b, r, "Proxy-Authorization");
        return digest(b.toString());
    }

    /** The first 8 bytes of the SHA-256 of {@code text}, in hex. */
    private static String digest(String text) {
        try {
            byte[] digest = MessageDigest.getInstance("SHA-256").digest(text.getBytes(StandardCharsets.UTF_8));
            return HexFormat.of().formatHex(digest, 0, 8);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is part of every Java runtime", e);
        }
    }

    private static void appendAll(StringBuilder b, Request r, String name) {
        for (Header h : HeaderLists.of(r, name)) {
            b.append(h.toString().trim()).append('\n');
        }
    }
}
