package org.p2psip.sip.wire;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;

/**
 * A set of byte-range replacements applied to a message in one copy: the
 * balancer adds and removes Via entries, decrements Max-Forwards and so on
 * without re-serialising anything it did not parse. Edits must not
 * overlap; inserts at one offset keep the order they were added in.
 */
public final class MessageEdits {

    private record Edit(int start, int end, byte[] insert, int order) {
    }

    private final byte[] source;
    private final int from;
    private final int to;
    private final List<Edit> edits = new ArrayList<>(4);

    /** Edits of {@code source[from..to)}; bytes outside that range are dropped. */
    public MessageEdits(byte[] source, int from, int to) {
        this.source = source;
        this.from = from;
        this.to = to;
    }

    public MessageEdits insert(int at, byte[] bytes) {
        return replace(at, at, bytes);
    }

    public MessageEdits delete(int start, int end) {
        return replace(start, end, new byte[0]);
    }

    public MessageEdits replace(int start, int end, byte[] bytes) {
        if (start < from || end > to || start > end) {
            throw new IllegalArgumentException("edit [" + start + "," + end + ") outside [" + from + "," + to + ")");
        }
        edits.add(new Edit(start, end, bytes, edits.size()));
        return this;
    }

    public ByteBuf toBuffer() {
        List<Edit> sorted = new ArrayList<>(edits);
        sorted.sort(Comparator.comparingInt(Edit::start).thenComparingInt(Edit::order));
        int size = to - from;
        int last = from;
        for (Edit e : sorted) {
            if (e.start() < last) {
                throw new IllegalStateException("overlapping edits at " + e.start());
            }
            size += e.insert().length - (e.end() - e.start());
            last = e.end();
        }
        ByteBuf out = Unpooled.buffer(size);
        int pos = from;
        for (Edit e : sorted) {
            out.writeBytes(source, pos, e.start() - pos);
            out.writeBytes(e.insert());
            pos = e.end();
        }
        out.writeBytes(source, pos, to - pos);
        return out;
    }
}
