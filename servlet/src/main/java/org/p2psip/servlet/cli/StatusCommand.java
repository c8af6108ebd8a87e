package org.p2psip.servlet.cli;

import java.io.PrintWriter;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;

import org.p2psip.core.json.JsonString;
import org.p2psip.core.net.HostPort;
import org.p2psip.servlet.admin.AdminClient;
import org.p2psip.servlet.admin.AdminClient.NodeReport;
import org.p2psip.servlet.admin.AdminClient.Result;

import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/**
 * {@code p2psip status}: each node of a running cluster as its admin
 * endpoint describes it, read twice {@code --interval} apart so the table
 * shows request rates, not only totals. Exits 1 when a node did not answer.
 */
@Command(name = "status", mixinStandardHelpOptions = true, versionProvider = VersionProvider.class,
        description = "Show the cluster's members: each node's SIP address, DHT backend, share of the key space it "
                + "owns, values it holds, and requests per second (REGISTER and INVITE apart), read through every "
                + "admin endpoint given (the nodes' --admin) and every other one the first that answers lists "
                + "(each node names its endpoint in the DHT every 30 s), signed with the cluster secret. A node that does not "
                + "answer is listed as down, one that refuses (a wrong secret) as refused; either way the exit "
                + "code is 1.")
final class StatusCommand implements Callable<Integer> {

    @Spec
    CommandSpec spec;

    @Mixin
    UserCommand.ClusterOptions options;

    @Option(names = "--interval", paramLabel = "MILLIS",
            description = "Time between the two readings the rates come from. Default: ${DEFAULT-VALUE}.")
    long intervalMillis = 1000;

    @Option(names = "--json", description = "One JSON object instead of the table, for scripts.")
    boolean json;

    /**
     * One node's row: its second reading and the rates between the two; an
     * empty report when it did not answer ({@code reachable} false: it is
     * down, as far as this machine can tell) or refused the request (a
     * wrong cluster secret: the node is up).
     */
    record Row(String admin, Optional<NodeReport> report, double requestRate, double registerRate,
               double inviteRate, String problem, boolean reachable) {

        Row(String admin, NodeReport report, double requestRate, double registerRate, double inviteRate) {
            this(admin, Optional.of(report), requestRate, registerRate, inviteRate, "", true);
        }

        /** "down" for a node nothing answered at, "refused" for one that answered but would not report. */
        String state() {
            return report.isPresent() ? "up" : reachable ? "refused" : "down";
        }
    }

    @Override
    public Integer call() {
        if (intervalMillis < 100 || intervalMillis > 60_000) {
            throw new ParameterException(spec.commandLine(), "--interval must be between 100 and 60000 ms");
        }
        AdminClient client = options.client(spec);
        List<HostPort> endpoints = client.clusterEndpoints();
        List<Result<NodeReport>> first = client.nodes(endpoints);
        try {
            TimeUnit.MILLISECONDS.sleep(intervalMillis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return OneLineErrors.FAILURE;
        }
        List<Result<NodeReport>> second = client.nodes(endpoints);
        double seconds = Duration.ofMillis(intervalMillis).toNanos() / 1e9;
        List<Row> rows = new ArrayList<>();
        boolean allUp = true;
        for (int i = 0; i < second.size(); i++) {
            Result<NodeReport> b = second.get(i);
            Optional<NodeReport> a = first.get(i).value();
            if (b.value().isEmpty()) {
                allUp = false;
                rows.add(new Row(b.admin().toString(), Optional.empty(), 0, 0, 0,
                        b.failure().map(Throwable::getMessage).orElse("no answer"),
                        b.failure().isPresent() && !(b.failure().get() instanceof AdminClient.Unreachable)));
                continue;
            }
            NodeReport now = b.value().get();
            double req = a.map(r -> (now.requests() - r.requests()) / seconds).orElse(Double.NaN);
            double reg = a.map(r -> (now.registers() - r.registers()) / seconds).orElse(Double.NaN);
            double inv = a.map(r -> (now.invites() - r.invites()) / seconds).orElse(Double.NaN);
            rows.add(new Row(b.admin().toString(), now, req, reg, inv));
        }
        PrintWriter out = spec.commandLine().getOut();
        out.print(json ? json(rows) : table(rows));
        out.flush();
        if (!allUp) {
            List<String> problems = rows.stream().filter(r -> r.report().isEmpty()).map(Row::problem).toList();
            long refused = rows.stream().filter(r -> r.state().equals("refused")).count();
            OneLineErrors.print(spec.commandLine(), problems.size() + " of " + rows.size() + " nodes "
                    + (refused == problems.size() ? "refused to report"
                            : refused == 0 ? "did not answer" : "did not answer or refused to report")
                    + ": " + String.join("; ", problems));
            return OneLineErrors.FAILURE;
        }
        return 0;
    }

    static String table(List<Row> rows) {
        StringBuilder b = new StringBuilder();
        b.append(String.format(Locale.ROOT, "%-21s %-21s %-9s %6s %9s %8s %8s %8s %8s%n", "ADMIN", "SIP", "BACKEND",
                "OWNS", "STORED", "REQ/S", "REG/S", "INV/S", "UPTIME"));
        double owned = 0;
        boolean shares = true;
        for (Row r : rows) {
            if (r.report().isEmpty()) {
                b.append(String.format(Locale.ROOT, "%-21s %s: %s%n", r.admin(), r.state(), r.problem()));
                continue;
            }
            NodeReport n = r.report().get();
            shares &= n.owns().isPresent();
            owned += n.owns().orElse(0);
            b.append(String.format(Locale.ROOT, "%-21s %-21s %-9s %6s %9s %8s %8s %8s %7ds%n", r.admin(), n.sip(),
                    n.backend(), n.owns().isPresent() ? String.format(Locale.ROOT, "%.1f%%", 100 * n.owns().getAsDouble())
                            : "-",
                    n.stored().isPresent() ? Long.toString(n.stored().getAsLong()) : "-", rate(r.requestRate()),
                    rate(r.registerRate()), rate(r.inviteRate()), n.uptimeSeconds()));
        }
        long up = rows.stream().filter(r -> r.report().isPresent()).count();
        b.append(String.format(Locale.ROOT, "%d of %d nodes answered%s%n", up, rows.size(),
                shares && up > 0 ? String.format(Locale.ROOT, "; together they own %.1f%% of the key space",
                        100 * owned) : ""));
        return b.toString();
    }

    private static String rate(double perSecond) {
        return Double.isNaN(perSecond) ? "-" : String.format(Locale.ROOT, "%.1f", perSecond);
    }

    static String json(List<Row> rows) {
        StringBuilder b = new StringBuilder("{\"nodes\":[");
        for (int i = 0; i < rows.size(); i++) {
            Row r = rows.get(i);
            b.append(i == 0 ? "" : ",").append("{\"admin\":").append(JsonString.quote(r.admin()));
            if (r.report().isEmpty()) {
                b.append(",\"up\":false,\"answered\":").append(r.reachable()).append(",\"problem\":")
                        .append(JsonString.quote(r.problem())).append('}');
                continue;
            }
            NodeReport n = r.report().get();
            b.append(",\"up\":true,\"id\":").append(JsonString.quote(n.id()))
                    .append(",\"sip\":").append(JsonString.quote(n.sip()))
                    .append(",\"backend\":").append(JsonString.quote(n.backend()))
                    .append(",\"owns\":").append(n.owns().isPresent() ? Double.toString(n.owns().getAsDouble()) : "null")
                    .append(",\"stored\":").append(n.stored().isPresent() ? Long.toString(n.stored().getAsLong()) : "null")
                    .append(",\"requests\":").append(n.requests())
                    .append(",\"registers\":").append(n.registers())
                    .append(",\"invites\":").append(n.invites())
                    .append(",\"requests_per_second\":").append(jsonRate(r.requestRate()))
                    .append(",\"registers_per_second\":").append(jsonRate(r.registerRate()))
                    .append(",\"invites_per_second\":").append(jsonRate(r.inviteRate()))
                    .append(",\"uptime_seconds\":").append(n.uptimeSeconds()).append('}');
        }
        return b.append("]}\n").toString();
    }

    private static String jsonRate(double perSecond) {
        return Double.isNaN(perSecond) ? "null" : String.format(Locale.ROOT, "%.3f", perSecond);
    }
}
