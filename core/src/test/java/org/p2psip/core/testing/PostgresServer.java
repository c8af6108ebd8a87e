package org.p2psip.core.testing;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.nio.file.attribute.UserPrincipal;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * A PostgreSQL server of the test's own (Debian's {@code postgresql}
 * package, which {@code .ci/run} installs): a cluster made with
 * {@code initdb} in a directory of the test, listening on 127.0.0.1 at a
 * free port with its socket beside its data, and stopped by
 * {@link #close}, also when the test fails. The server refuses to run as
 * root, so under root every command runs as the package's {@code postgres}
 * user, which then owns the directory.
 *
 * <p>Durability is off ({@code fsync}): the tests stop and start the
 * server cleanly and have no use for surviving a power cut, and it keeps
 * their disk writes small on a machine other tests share.
 */
public final class PostgresServer implements AutoCloseable {

    private static final Path VERSIONS = Path.of("/usr/lib/postgresql");
    private static final String SUPERUSER = "postgres";

    private final Path bin;
    private final Path data;
    private final Path socket;
    private final Path log;
    private final int port;
    private final boolean asPostgresUser;
    private boolean running;

    private PostgresServer(Path bin, Path dir, int port, boolean asPostgresUser) {
        this.bin = bin;
        this.data = dir.resolve("data");
        this.socket = dir.resolve("socket");
        this.log = dir.resolve("server.log");
        this.port = port;
        this.asPostgresUser = asPostgresUser;
    }

    /** Makes a cluster in {@code dir} (which must not exist yet) and starts it. */
    public static PostgresServer start(Path dir) throws Exception {
        boolean root = "root".equals(System.getProperty("user.name"));
        PostgresServer server = new PostgresServer(binaries(), dir, FreePorts.udpAndTcp(), root);
        Files.createDirectories(server.socket);
        if (root) {
            // The postgres user must reach its directory through the test's own, which only root may enter.
            Files.setPosixFilePermissions(dir.getParent(), PosixFilePermissions.fromString("rwx--x--x"));
            UserPrincipal postgres = dir.getFileSystem().getUserPrincipalLookupService()
                    .lookupPrincipalByName(SUPERUSER);
            Files.setOwner(dir, postgres);
            Files.setOwner(server.socket, postgres);
        }
        server.run("initdb", "-D", server.data.toString(), "-A", "trust", "-U", SUPERUSER, "-E", "UTF8",
                "--no-locale", "--no-sync");
        server.start();
        return server;
    }

    /** Where Debian put the newest server version's programs, or an error naming the package. */
    private static Path binaries() throws IOException {
        if (Files.isDirectory(VERSIONS)) {
            try (Stream<Path> versions = Files.list(VERSIONS)) {
                List<Path> found = versions.map(v -> v.resolve("bin"))
                        .filter(b -> Files.isExecutable(b.resolve("initdb")) && Files.isExecutable(b.resolve("pg_ctl")))
                        .sorted(Comparator.comparing(b -> versionOf(b.getParent()))).toList();
                if (!found.isEmpty()) {
                    return found.get(found.size() - 1);
                }
            }
        }
        throw new AssertionError("the PostgreSQL server is not installed: apt-get install -y postgresql "
                + "(.ci/run does this)");
    }

    private static int versionOf(Path dir) {
        try {
            return Integer.parseInt(dir.getFileName().toString());
        } catch (NumberFormatException e) {
            return -1;
        }
    }

    /** Starts the server (again) and waits until it accepts connections. */
    public void start() throws Exception {
        run("pg_ctl", "-D", data.toString(), "-l", log.toString(), "-w", "-t", "60", "-o",
                "-h 127.0.0.1 -p " + port + " -k " + socket + " -c fsync=off -c full_page_writes=off", "start");
        running = true;
    }

    /** Stops the server as an operator does for maintenance: open sessions are ended, nothing is lost. */
    public void stop() throws Exception {
        run("pg_ctl", "-D", data.toString(), "-m", "fast", "-w", "-t", "60", "stop");
        running = false;
    }

    /** A new database owned by the superuser. */
    public void createDatabase(String name) throws SQLException {
        try (Connection c = DriverManager.getConnection(url("postgres")); Statement s = c.createStatement()) {
            s.execute("CREATE DATABASE " + name);
        }
    }

    /** The JDBC URL of database {@code name}, as a node's {@code --acct-db} takes it. */
    public String url(String name) {
        return "jdbc:postgresql://127.0.0.1:" + port + "/" + name + "?user=" + SUPERUSER;
    }

    /** The server's log, for a failure message. */
    public String logTail(int lines) throws IOException {
        if (!Files.exists(log)) {
            return "";
        }
        List<String> all = Files.readAllLines(log, StandardCharsets.UTF_8);
        return String.join("\n", all.subList(Math.max(0, all.size() - lines), all.size()));
    }

    @Override
    public void close() throws Exception {
        if (running) {
            run("pg_ctl", "-D", data.toString(), "-m", "immediate", "-w", "-t", "30", "stop");
            running = false;
        }
    }

    /** Runs one of the server's programs to its end; a failure carries what it printed. */
    private void run(String program, String... args) throws IOException, InterruptedException {
        List<String> command = new ArrayList<>();
        if (asPostgresUser) {
            command.addAll(List.of("runuser", "-u", SUPERUSER, "--"));
        }
        command.add(bin.resolve(program).toString());
        command.addAll(List.of(args));
        Path output = Files.createTempFile("postgres-" + program, ".log");
        try {
            // Output to a file: the server pg_ctl starts may hold on to a pipe long after pg_ctl is gone.
            Process p = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(output.toFile()).start();
            if (!p.waitFor(120, TimeUnit.SECONDS)) {
                p.destroyForcibly();
                throw new AssertionError(program + " did not finish within 120 s");
            }
            if (p.exitValue() != 0) {
                throw new AssertionError(String.join(" ", command) + " exited with " + p.exitValue() + ":\n"
                        + Files.readString(output, StandardCharsets.UTF_8) + "\n" + logTail(30));
            }
        } finally {
            Files.deleteIfExists(output);
        }
    }
}
