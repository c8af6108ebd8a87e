package org.p2psip.servlet.cli;

import java.io.BufferedReader;
import java.io.Console;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;

import org.p2psip.core.auth.UserCredentials;
import org.p2psip.core.location.AddressOfRecord;
import org.p2psip.core.location.ServedDomains;
import org.p2psip.core.net.HostPort;
import org.p2psip.servlet.admin.AdminClient;
import org.p2psip.servlet.admin.AdminClient.AdminException;

import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/**
 * {@code p2psip user add|remove|list|import}: users' credentials into and
 * out of a running cluster, through any node's admin endpoint, signed with
 * the cluster secret. Passwords stay in this process: only HA1 for each
 * digest algorithm is sent and stored (RFC 7616 §3.4.2).
 */
@Command(name = "user", mixinStandardHelpOptions = true, versionProvider = VersionProvider.class,
        description = "Manage the users of a running cluster: their digest credentials live in its DHT, so every "
                + "node authenticates every user.",
        subcommands = {UserCommand.Add.class, UserCommand.Remove.class, UserCommand.List_.class,
                UserCommand.Import.class})
final class UserCommand implements Runnable {

    @Spec
    CommandSpec spec;

    @Override
    public void run() {
        throw new ParameterException(spec.commandLine(), "missing command: one of add, remove, list, import");
    }

    /** The options every user subcommand shares: where the cluster is and its secret. */
    static final class ClusterOptions {

        @Option(names = "--cluster", required = true, paramLabel = "HOST:PORT", split = ",",
                converter = HostPortConverter.class,
                description = "Admin endpoints of the cluster's nodes (their --admin), tried in order.")
        java.util.List<HostPort> cluster;

        @Option(names = "--cluster-secret-file", paramLabel = "FILE",
                description = "File holding the cluster secret. Default: the environment variable "
                        + ClusterSecrets.ENV + " (or " + ClusterSecrets.LEGACY_ENV + ").")
        Path secretFile;

        AdminClient client(CommandSpec spec) {
            String secret;
            if (secretFile != null) {
                try {
                    secret = Files.readString(secretFile, StandardCharsets.UTF_8).strip();
                } catch (IOException e) {
                    throw new ParameterException(spec.commandLine(), UnreadableFile.message(secretFile, e));
                }
            } else {
                secret = ClusterSecrets.resolve(null).orElseThrow(() -> new ParameterException(spec.commandLine(),
                        "the cluster secret is needed: set " + ClusterSecrets.ENV + " or give --cluster-secret-file"));
            }
            if (secret.isEmpty()) {
                throw new ParameterException(spec.commandLine(), "the cluster secret is empty");
            }
            return new AdminClient(cluster, secret.getBytes(StandardCharsets.UTF_8), Clock.systemUTC());
        }
    }

    /** Runs an admin call and turns its failure into the one-line error and exit code of the CLI contract. */
    abstract static class Sub implements Callable<Integer> {

        @Spec
        CommandSpec spec;

        @Mixin
        ClusterOptions options;

        @Override
        public Integer call() {
            try {
                return run(options.client(spec), spec.commandLine().getOut());
            } catch (AdminException e) {
                OneLineErrors.print(spec.commandLine(), e.getMessage());
                return OneLineErrors.FAILURE;
            }
        }

        abstract int run(AdminClient client, PrintWriter out) throws AdminException;
    }

    @Command(name = "add", mixinStandardHelpOptions = true, versionProvider = VersionProvider.class,
            description = "Add a user, or give an existing one a new password.")
    static final class Add extends Sub {

        @Parameters(index = "0", paramLabel = "USER@DOMAIN", description = "The user's address-of-record.")
        String aor;

        @Option(names = "--password-stdin",
                description = "Read the password from the first line of standard input (for scripts). "
                        + "Without it the password is asked for on the terminal.")
        boolean passwordStdin;

        @Override
        int run(AdminClient client, PrintWriter out) throws AdminException {
            String password = password();
            AddressOfRecord user = AdminClient.canonical(aor, client.domains());
            client.putUsers(List.of(UserCredentials.fromPassword(user, password)));
            out.println("p2psip user: added " + user);
            out.flush();
            return 0;
        }

        private String password() {
            if (passwordStdin) {
                try {
                    String line = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8)).readLine();
                    if (line == null || line.isEmpty()) {
                        throw new ParameterException(spec.commandLine(), "no password on standard input");
                    }
                    return line;
                } catch (IOException e) {
                    throw new ParameterException(spec.commandLine(), "cannot read standard input: " + e.getMessage());
                }
            }
            Console console = System.console();
            if (console == null) {
                throw new ParameterException(spec.commandLine(), "no terminal to ask for the password: use --password-stdin");
            }
            char[] first = console.readPassword("Password for %s: ", aor);
            char[] second = console.readPassword("Again: ");
            if (first == null || first.length == 0 || !Arrays.equals(first, second)) {
                throw new ParameterException(spec.commandLine(), "the passwords were empty or did not match");
            }
            return new String(first);
        }
    }

    @Command(name = "remove", mixinStandardHelpOptions = true, versionProvider = VersionProvider.class,
            description = "Remove a user's credentials; its registrations lapse as they expire.")
    static final class Remove extends Sub {

        @Parameters(index = "0", paramLabel = "USER@DOMAIN", description = "The user's address-of-record.")
        String aor;

        @Override
        int run(AdminClient client, PrintWriter out) throws AdminException {
            AddressOfRecord user = AdminClient.canonical(aor, client.domains());
            if (!client.removeUser(user)) {
                throw new AdminException("no user " + user);
            }
            out.println("p2psip user: removed " + user);
            out.flush();
            return 0;
        }
    }

    @Command(name = "list", mixinStandardHelpOptions = true, versionProvider = VersionProvider.class,
            description = "List every user, one address-of-record per line.")
    static final class List_ extends Sub {

        @Override
        int run(AdminClient client, PrintWriter out) throws AdminException {
            client.listUsers().forEach(out::println);
            out.flush();
            return 0;
        }
    }

    @Command(name = "import", mixinStandardHelpOptions = true, versionProvider = VersionProvider.class,
            description = "Add or update many users from a CSV file: USER@DOMAIN,PASSWORD per line (the password "
                    + "is everything after the first comma); blank lines, lines starting with # and a first line "
                    + "'aor,password' are skipped. The file is checked whole before anything is written.")
    static final class Import extends Sub {

        @Parameters(index = "0", paramLabel = "FILE.csv", description = "The users to add.")
        Path file;

        @Override
        int run(AdminClient client, PrintWriter out) throws AdminException {
            List<String> lines;
            try {
                lines = Files.readAllLines(file, StandardCharsets.UTF_8);
            } catch (IOException e) {
                throw new AdminException(UnreadableFile.message(file, e));
            }
            long start = System.nanoTime();
            ServedDomains domains = client.domains();
            List<UserCredentials> users = new ArrayList<>(lines.size());
            for (int i = 0; i < lines.size(); i++) {
                String line = lines.get(i);
                String trimmed = line.strip();
                if (trimmed.isEmpty() || trimmed.startsWith("#")
                        || (i == 0 && trimmed.toLowerCase(Locale.ROOT).equals("aor,password"))) {
                    continue;
                }
                int comma = line.indexOf(',');
                if (comma <= 0 || comma == line.length() - 1) {
                    throw new AdminException(file + " line " + (i + 1) + ": expected USER@DOMAIN,PASSWORD");
                }
                AddressOfRecord user;
                try {
                    user = AdminClient.canonical(line.substring(0, comma).strip(), domains);
                } catch (AdminException e) {
                    throw new AdminException(file + " line " + (i + 1) + ": " + e.getMessage());
                }
                users.add(UserCredentials.fromPassword(user, line.substring(comma + 1)));
            }
            int n = client.putUsers(users);
            out.printf(Locale.ROOT, "p2psip user: imported %d users in %.1f s%n", n, (System.nanoTime() - start) / 1e9);
            out.flush();
            return 0;
        }
    }
}
