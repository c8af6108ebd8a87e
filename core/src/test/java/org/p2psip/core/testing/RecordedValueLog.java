package org.p2psip.core.testing;

import java.util.ArrayList;
import java.util.List;

import org.p2psip.core.store.HeldValue;
import org.p2psip.core.store.HeldValueLog;

/** A {@link HeldValueLog} that writes down what a backend's store reported, as "stored KEY vVERSION" or "removed KEY". */
public final class RecordedValueLog implements HeldValueLog {

    private final List<String> entries = new ArrayList<>();

    @Override
    public synchronized void stored(HeldValue value) {
        entries.add("stored " + value.key() + " v" + value.version());
    }

    @Override
    public synchronized void removed(String key) {
        entries.add("removed " + key);
    }

    /** Everything reported so far, in order. */
    public synchronized List<String> entries() {
        return List.copyOf(entries);
    }
}
