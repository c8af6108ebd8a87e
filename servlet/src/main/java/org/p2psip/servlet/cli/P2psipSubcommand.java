package org.p2psip.servlet.cli;

/**
 * A subcommand contributed by another module (for example {@code bench}
 * from loadtest), found with {@link java.util.ServiceLoader}: list the
 * implementation in {@code META-INF/services/org.p2psip.servlet.cli.P2psipSubcommand}.
 */
public interface P2psipSubcommand {

    /** The word users type after {@code p2psip}. */
    String name();

    /** A picocli command object: annotated with {@code @Command}, a {@code Runnable} or {@code Callable<Integer>}. */
    Object command();
}
