package org.p2psip.servlet.cli;

import java.util.concurrent.Callable;

import picocli.CommandLine.Command;

/** A subcommand contributed the way the loadtest module's {@code bench} will be. */
public final class PingSubcommand implements P2psipSubcommand {

    @Override
    public String name() {
        return "ping-test";
    }

    @Override
    public Object command() {
        return new Ping();
    }

    @Command(name = "ping-test", description = "Answers 7, for the plug-in test.")
    static final class Ping implements Callable<Integer> {
        @Override
        public Integer call() {
            return 7;
        }
    }
}
