package org.p2psip.core.guard;

/** What a {@link SourceGuard} decided about one message. */
public enum SourceVerdict {
    /** Within the source's rate (or the source is trusted): process it. */
    ADMIT,
    /** This message emptied the bucket: the source is banned from now on; drop it. */
    BANNED_NOW,
    /** The source is serving a ban: drop it silently. */
    BANNED;

    public boolean admitted() {
        return this == ADMIT;
    }
}
