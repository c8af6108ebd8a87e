package org.p2psip.servlet.cli;

import java.io.PrintWriter;
import java.util.Locale;
import java.util.stream.Collectors;

import org.p2psip.core.json.JsonString;
import org.p2psip.core.location.AddressOfRecord;
import org.p2psip.servlet.admin.AdminClient;
import org.p2psip.servlet.admin.AdminClient.AdminException;
import org.p2psip.servlet.admin.AdminClient.AorReport;
import org.p2psip.servlet.admin.AdminClient.BindingReport;
import org.p2psip.servlet.admin.AdminClient.PeerReport;

import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;
import picocli.CommandLine.Model.CommandSpec;

/**
 * {@code p2psip aor show|remove USER@DOMAIN}: an address-of-record's
 * bindings and where the DHT keeps them, or their removal, through any
 * node's admin endpoint, signed with the cluster secret (as {@code
 * kamcmd ul.dump} and {@code ul.rm} do for Kamailio's usrloc).
 */
@Command(name = "aor", mixinStandardHelpOptions = true, versionProvider = VersionProvider.class,
        description = "Show or remove the registrations of an address-of-record in a running cluster, through any "
                + "node's admin endpoint (its --admin), signed with the cluster secret.",
        subcommands = {AorCommand.Show.class, AorCommand.Remove.class})
final class AorCommand implements Runnable {

    @Spec
    CommandSpec spec;

    @Override
    public void run() {
        throw new ParameterException(spec.commandLine(), "missing command: one of show, remove");
    }

    @Command(name = "show", mixinStandardHelpOptions = true, versionProvider = VersionProvider.class,
            description = "The AOR's live bindings (contact, seconds left, q) and the nodes that hold it: the key's "
                    + "owner and its replicas.")
    static final class Show extends UserCommand.Sub {

        @Parameters(index = "0", paramLabel = "USER@DOMAIN", description = "The address-of-record.")
        String aor;

        @Option(names = "--json", description = "One JSON object instead of the table, for scripts.")
        boolean json;

        @Override
        int run(AdminClient client, PrintWriter out) throws AdminException {
            AddressOfRecord name = AdminClient.canonical(aor, client.domains());
            AorReport report = client.aor(name);
            out.print(json ? json(report) : table(report));
            out.flush();
            return 0;
        }

        static String table(AorReport r) {
            StringBuilder b = new StringBuilder();
            b.append(r.aor()).append('\n');
            b.append("  owner    ").append(peer(r.owner())).append('\n');
            for (PeerReport p : r.replicas()) {
                b.append("  replica  ").append(peer(p)).append('\n');
            }
            if (r.bindings().isEmpty()) {
                b.append("  no bindings\n");
                return b.toString();
            }
            int width = r.bindings().stream().mapToInt(x -> x.contact().length()).max().orElse(7);
            width = Math.max(width, "CONTACT".length());
            b.append(String.format(Locale.ROOT, "  %-" + width + "s  %8s  %5s%n", "CONTACT", "EXPIRES", "Q"));
            for (BindingReport x : r.bindings()) {
                b.append(String.format(Locale.ROOT, "  %-" + width + "s  %7ds  %5s%n", x.contact(), x.secondsLeft(),
                        x.q().isPresent() ? String.format(Locale.ROOT, "%.3f", x.q().getAsInt() / 1000.0) : "-"));
            }
            return b.toString();
        }

        private static String peer(PeerReport p) {
            return p.sip().map(s -> "sip:" + s).orElse("(no SIP address)") + "  id " + p.id();
        }

        static String json(AorReport r) {
            String replicas = r.replicas().stream().map(Show::peerJson).collect(Collectors.joining(",", "[", "]"));
            String bindings = r.bindings().stream().map(Show::bindingJson).collect(Collectors.joining(",", "[", "]"));
            return "{\"aor\":" + JsonString.quote(r.aor()) + ",\"owner\":" + peerJson(r.owner()) + ",\"replicas\":"
                    + replicas + ",\"bindings\":" + bindings + "}\n";
        }

        private static String bindingJson(BindingReport x) {
            return "{\"contact\":" + JsonString.quote(x.contact()) + ",\"expires\":" + x.secondsLeft() + ",\"q\":"
                    + (x.q().isPresent() ? String.format(Locale.ROOT, "%.3f", x.q().getAsInt() / 1000.0) : "null") + "}";
        }

        private static String peerJson(PeerReport p) {
            return "{\"id\":" + JsonString.quote(p.id()) + ",\"sip\":"
                    + p.sip().map(JsonString::quote).orElse("null") + "}";
        }
    }

    @Command(name = "remove", mixinStandardHelpOptions = true, versionProvider = VersionProvider.class,
            description = "Remove every binding of the AOR at once, as a REGISTER with 'Contact: *' and Expires 0 "
                    + "would (RFC 3261 §10.3). Its user's credentials stay; 'p2psip user remove' removes those.")
    static final class Remove extends UserCommand.Sub {

        @Parameters(index = "0", paramLabel = "USER@DOMAIN", description = "The address-of-record.")
        String aor;

        @Override
        int run(AdminClient client, PrintWriter out) throws AdminException {
            AddressOfRecord name = AdminClient.canonical(aor, client.domains());
            int removed = client.removeAor(name);
            out.println("p2psip aor: removed " + removed + " binding" + (removed == 1 ? "" : "s") + " of " + name);
            out.flush();
            return 0;
        }
    }
}
