package org.p2psip.servlet.cli;

import java.util.ServiceLoader;

import org.p2psip.servlet.accounting.LoopbackH2Server;

import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Spec;

/**
 * The {@code p2psip} command line. Subcommands built in: {@code node}.
 * Others ({@code bench} from the loadtest module, ...) join through
 * {@link P2psipSubcommand} when their module is on the class path.
 */
@Command(name = "p2psip", mixinStandardHelpOptions = true, versionProvider = VersionProvider.class,
        description = "A distributed SIP proxy/registrar (P2PSIP) on a pluggable DHT.",
        subcommands = {NodeCommand.class, LbCommand.class, ClusterCommand.class, UserCommand.class, StatusCommand.class,
                AorCommand.class, AcctCommand.class})
public final class P2psip implements Runnable {

    static {
        // Before any H2 class loads, which reads this setting once (see LoopbackH2Server).
        LoopbackH2Server.bindToLoopback();
    }

    @Spec
    CommandSpec spec;

    public static void main(String[] args) {
        int code = run(args);
        if (code != 0) {
            System.exit(code);
        }
    }

    /** Runs the command line and returns its exit code; {@code node} returns only after shutdown. */
    public static int run(String... args) {
        return commandLine().execute(args);
    }

    /** The command tree with every discovered subcommand, for tests and launchers. */
    public static CommandLine commandLine() {
        CommandLine cl = new CommandLine(new P2psip());
        for (P2psipSubcommand extra : ServiceLoader.load(P2psipSubcommand.class)) {
            if (!cl.getSubcommands().containsKey(extra.name())) {
                cl.addSubcommand(extra.name(), extra.command());
            }
        }
        // Set after the discovered subcommands joined: picocli hands a provider only to the subcommands there are.
        ConfigFileDefaults configFiles = new ConfigFileDefaults();
        cl.setDefaultValueProvider(configFiles);
        OneLineErrors errors = new OneLineErrors(configFiles);
        cl.setParameterExceptionHandler(errors);
        cl.setExecutionExceptionHandler(errors);
        return cl;
    }

    @Override
    public void run() {
        throw new CommandLine.ParameterException(spec.commandLine(), "missing command: one of "
                + String.join(", ", spec.subcommands().keySet()));
    }
}
