package org.p2psip.loadtest.bench;

import org.p2psip.servlet.cli.P2psipSubcommand;

/** Adds {@code bench} to the {@code p2psip} command line when the loadtest module is on the class path. */
public final class BenchCli implements P2psipSubcommand {

    @Override
    public String name() {
        return "bench";
    }

    @Override
    public Object command() {
        return BenchCommand.commandLine();
    }
}
