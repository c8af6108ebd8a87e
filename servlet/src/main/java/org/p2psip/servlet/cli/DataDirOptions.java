package org.p2psip.servlet.cli;

import java.nio.file.Path;
import java.time.Duration;
import java.util.Optional;

import org.p2psip.core.store.DataDir;
import org.p2psip.core.store.FlushPolicy;

import picocli.CommandLine;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;

/**
 * {@code --data-dir} and its buffering, {@code --flush-count} and
 * {@code --flush-ms}: where a node keeps what must survive a restart of
 * every node at once, and how its writes are batched on the way there.
 * The node's accounting ({@link AccountingOptions}) is batched the same way.
 */
final class DataDirOptions {

    @Option(names = "--data-dir", paramLabel = "DIR",
            description = "Keep the registrations and credentials this node holds (owned and replicated) in DIR as "
                    + "well as in memory, written behind in batches, and load the live ones from it at start before "
                    + "serving, so a restart of every node at once loses nothing written --flush-ms before it. "
                    + "Created if missing; one directory per node (cluster gives node N DIR/node-N). "
                    + "Default: memory only.")
    Path dataDir;

    @Option(names = "--flush-count", paramLabel = "N",
            description = "With --data-dir, and for accounting (--acct-db): write buffered changes once N have piled "
                    + "up (1: each as soon as the writer is free). Default: ${DEFAULT-VALUE}.")
    int flushCount = FlushPolicy.DEFAULT.count();

    @Option(names = "--flush-ms", paramLabel = "MS",
            description = "With --data-dir, and for accounting (--acct-db): write buffered changes once the oldest "
                    + "has waited MS milliseconds, however few. Default: ${DEFAULT-VALUE}.")
    long flushMillis = FlushPolicy.DEFAULT.interval().toMillis();

    /** The directory and its flush policy, if one was given; a bad count or time is the command line's error. */
    Optional<DataDir> dataDir(CommandLine cmd) {
        FlushPolicy flush = flushPolicy(cmd);
        return Optional.ofNullable(dataDir).map(d -> new DataDir(d, flush));
    }

    /** The flush policy, with or without a directory; a bad count or time is the command line's error. */
    FlushPolicy flushPolicy(CommandLine cmd) {
        try {
            return new FlushPolicy(flushCount, Duration.ofMillis(flushMillis));
        } catch (IllegalArgumentException e) {
            throw new ParameterException(cmd, e.getMessage());
        }
    }
}
