package org.p2psip.loadtest.bench;

import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/** {@code p2psip bench}: the load generator's scenarios and the trivial responder. */
@Command(name = "bench", mixinStandardHelpOptions = true,
        description = "Load a SIP registrar/proxy and measure it: requests per second, success, latency "
                + "percentiles. Open-loop fixed rate (--rate) or a search for the highest sustainable rate "
                + "(--max-rate).")
final class BenchCommand implements Runnable {

    @Spec
    CommandSpec spec;

    /** The command with every scenario and the responder as subcommands. */
    static CommandLine commandLine() {
        CommandLine cl = new CommandLine(new BenchCommand());
        cl.setCaseInsensitiveEnumValuesAllowed(true);
        cl.addSubcommand(ScenarioCommand.commandLine(Scenario.REGISTER,
                "REGISTER a new binding for each of N distinct AORs (the P2PSIP paper's registration test)."));
        cl.addSubcommand(ScenarioCommand.commandLine(Scenario.REREGISTER,
                "Register N AORs (unmeasured), then refresh each with the same Call-ID and a higher CSeq "
                        + "(RFC 3261 §10.2.4) and measure the refreshes."));
        cl.addSubcommand(ScenarioCommand.commandLine(Scenario.CALL,
                "Calls through the target to a built-in UAS that registers its AORs first: INVITE, 100, 180, "
                        + "200, ACK, BYE, 200. Latency is INVITE sent to BYE answered."));
        cl.addSubcommand(ScenarioCommand.commandLine(Scenario.MESSAGE,
                "MESSAGE requests to AORs a built-in UAS registered first: one location lookup per request "
                        + "(Kamailio's user-location lookup test)."));
        cl.addSubcommand(new CommandLine(new ResponderCommand()));
        cl.addSubcommand(org.p2psip.loadtest.scale.ScaleCommand.commandLine());
        cl.addSubcommand(org.p2psip.loadtest.flood.FloodCommand.commandLine());
        cl.addSubcommand(org.p2psip.loadtest.connections.ConnectionsCommand.commandLine());
        return cl;
    }

    @Override
    public void run() {
        throw new ParameterException(spec.commandLine(), "missing scenario: one of "
                + String.join(", ", spec.subcommands().keySet()));
    }
}
