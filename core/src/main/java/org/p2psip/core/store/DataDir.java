package org.p2psip.core.store;

import java.nio.file.Path;
import java.util.Objects;

/**
 * Where a node keeps what must survive its restart ({@code --data-dir}):
 * the DHT values it holds, and by default its accounting; and how its
 * buffered writes reach that directory.
 *
 * @param path  the directory; created if missing
 * @param flush when buffered writes are written
 */
public record DataDir(Path path, FlushPolicy flush) {

    public DataDir {
        Objects.requireNonNull(path, "path");
        Objects.requireNonNull(flush, "flush");
    }
}
