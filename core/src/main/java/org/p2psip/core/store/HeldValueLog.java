package org.p2psip.core.store;

/**
 * Where a backend reports every change to the values it holds (owned and
 * replicated), so a copy elsewhere can follow them: {@link WriteBehindValues}
 * keeps one on disk. Called on the backend's own threads, often its one
 * owner thread, so an implementation must never block or throw.
 */
public interface HeldValueLog {

    /** A log that keeps nothing: a node without a data directory. */
    HeldValueLog NONE = new HeldValueLog() {
        @Override
        public void stored(HeldValue value) {
        }

        @Override
        public void removed(String key) {
        }
    };

    /** The node now holds {@code value} under its key, replacing what it held. */
    void stored(HeldValue value);

    /** The node no longer holds {@code key}: removed, expired, or handed over and dropped. */
    void removed(String key);
}
