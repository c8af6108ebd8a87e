/**
 * The {@code p2psip} command line, on picocli: {@code node}, {@code lb},
 * {@code cluster}, {@code user}, {@code status}, {@code aor} and {@code acct}
 * from {@link org.p2psip.servlet.cli.P2psip}, and the subcommands other
 * modules add through {@link org.p2psip.servlet.cli.P2psipSubcommand}
 * ({@code bench}, from loadtest). A bad flag or a failure is one line on
 * standard error with a non-zero exit code, never a stack trace, because
 * scripts read that line. A {@code --config} file supplies defaults that
 * flags override, and the cluster secret may come from the environment
 * ({@link org.p2psip.servlet.cli.ClusterSecrets}) to keep it out of the
 * process list.
 */
package org.p2psip.servlet.cli;
