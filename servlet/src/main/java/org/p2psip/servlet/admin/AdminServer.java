package org.p2psip.servlet.admin;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.lang.management.ManagementFactory;
import java.security.SecureRandom;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalDouble;
import java.util.OptionalLong;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.BooleanSupplier;

import org.p2psip.core.auth.CredentialStore;
import org.p2psip.core.auth.UserCredentials;
import org.p2psip.core.dht.Dht;
import org.p2psip.core.dht.Peer;
import org.p2psip.core.dht.Placement;
import org.p2psip.core.location.AddressOfRecord;
import org.p2psip.core.location.Binding;
import org.p2psip.core.location.ContactSpec;
import org.p2psip.core.location.RegisterOutcome;
import org.p2psip.core.location.RegisterRequest;
import org.p2psip.core.location.ServedDomains;
import org.p2psip.core.metrics.SipTraffic;
import org.p2psip.core.net.HostPort;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;

/**
 * A node's admin endpoint (HTTP, {@code --admin HOST:PORT}): user
 * credentials into and out of the cluster's DHT, for {@code p2psip user}.
 * Every request must be signed with the cluster secret for this node
 * ({@link AdminSignature}); each signature is accepted once in the whole
 * cluster.
 *
 * <pre>
 * GET    /v1/domains   served domains and aliases, one per line
 * GET    /v1/users     every user, "sip:user@domain" per line
 * POST   /v1/users     add or replace users ({@link UserLines#credentials})
 * DELETE /v1/users     remove users ({@link UserLines#aors}); answers how many existed
 * GET    /v1/node      this node: "NAME VALUE" lines ({@link #nodeText})
 * GET    /v1/members   the cluster's admin endpoints, "ADMIN SIP" per line ({@link AdminDirectory})
 * GET    /v1/aors/A    the bindings, owner and replicas of user@domain A ({@link #aorText})
 * DELETE /v1/aors/A    remove every binding of A (RFC 3261 §10.3 step 6, a wildcard with a
 *                      Call-ID of its own); answers how many there were
 * GET    /ready        200 once the node is ready for its share of the load, 503 before;
 *                      unsigned, as supervisors' readiness probes ask, and tells nothing else
 * GET    /v1/identity  unsigned: the node's SIP address, which a client names in its signature
 * </pre>
 * A request body is sealed with the cluster's key ({@link AdminBodyCipher}); the HA1s of
 * {@code POST /v1/users} never cross the wire in clear.
 * Answers are text: 200 with the result, or a one-line reason with 400
 * (bad input, nothing written), 401 (not signed with the secret), 404,
 * 405, 413 or 500.
 */
public final class AdminServer implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(AdminServer.class);
    private static final int MAX_BODY = 16 * 1024 * 1024;
    private static final Duration DHT_WAIT = Duration.ofSeconds(120);
    private static final String AORS = "/v1/aors/";
    private static final String READY = "/ready";
    private static final String IDENTITY = "/v1/identity";
    /** How often the refresher looks whether the directory entry is due. */
    private static final long DIRECTORY_LOOK_MILLIS = 1_000;

    private final HttpServer server;
    private final ExecutorService threads;
    private final AdminSignature signature;
    private final ServedDomains domains;
    private final CredentialStore credentials;
    private final Clock clock;
    private final AdminView view;
    private final BooleanSupplier ready;
    private final SecureRandom random = new SecureRandom();
    private final AdminDirectory directory;
    private final AdminBodyCipher cipher;
    private final ScheduledExecutorService refresher;
    /** When this node last wrote its directory entry (nanoTime), 0 before; the refresher thread's alone. */
    private long lastRefreshNanos;
    /** Nonces of accepted requests until they leave the signature window. */
    private final Map<String, Long> seen = new ConcurrentHashMap<>();

    private AdminServer(HttpServer server, ExecutorService threads, AdminSignature signature, AdminBodyCipher cipher,
                        ServedDomains domains, CredentialStore credentials, Clock clock, AdminView view,
                        BooleanSupplier ready) {
        this.cipher = cipher;
        this.directory = new AdminDirectory(view.dht(), reachableAt(server.getAddress(), view.sip()), view.sip(),
                clock::instant);
        this.refresher = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "p2psip-admin-directory");
            t.setDaemon(true);
            return t;
        });
        this.ready = ready;
        this.server = server;
        this.threads = threads;
        this.signature = signature;
        this.domains = domains;
        this.credentials = credentials;
        this.clock = clock;
        this.view = view;
    }

    /**
     * Binds {@code address} and serves until {@link #close}.
     *
     * @param ready whether the node is ready, answered at {@code GET /ready}
     */
    public static AdminServer start(HostPort address, byte[] secret, ServedDomains domains,
                                    CredentialStore credentials, Clock clock, AdminView view, BooleanSupplier ready)
            throws IOException {
        HttpServer http = HttpServer.create(new InetSocketAddress(address.host(), address.port()), 16);
        ExecutorService threads = Executors.newFixedThreadPool(2, r -> {
            Thread t = new Thread(r, "p2psip-admin");
            t.setDaemon(true);
            return t;
        });
        AdminServer admin = new AdminServer(http, threads, new AdminSignature(secret), new AdminBodyCipher(secret),
                domains, credentials, clock, view, ready);
        http.createContext("/", admin::handle);
        http.setExecutor(threads);
        http.start();
        admin.refresher.scheduleWithFixedDelay(admin::refreshDirectory, DIRECTORY_LOOK_MILLIS,
                DIRECTORY_LOOK_MILLIS, TimeUnit.MILLISECONDS);
        return admin;
    }

    /** The address others reach this endpoint at: its own, or the node's SIP host when it listens everywhere. */
    private static HostPort reachableAt(InetSocketAddress bound, HostPort sip) {
        return bound.getAddress().isAnyLocalAddress() ? new HostPort(sip.host(), bound.getPort())
                : new HostPort(bound.getAddress().getHostAddress(), bound.getPort());
    }

    /**
     * Writes this node's entry once it is ready and then every
     * {@link AdminDirectory#REFRESH}: a node still warming up leaves the DHT
     * to its warm-up, and a cluster's nodes, which start together, do not
     * all write the one value at once.
     */
    private void refreshDirectory() {
        long now = System.nanoTime();
        boolean fresh = lastRefreshNanos != 0 && now - lastRefreshNanos < AdminDirectory.REFRESH.toNanos();
        if (!ready.getAsBoolean() || fresh) {
            return;
        }
        lastRefreshNanos = now;
        try {
            directory.refresh().get(DHT_WAIT.toMillis(), TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (ExecutionException | TimeoutException | RuntimeException e) {
            // The next round tries again; meanwhile status finds this node only when it is named.
            LOG.debug("admin directory not refreshed: {}", e.toString());
        }
    }

    /** Where it listens. */
    public HostPort address() {
        InetSocketAddress a = server.getAddress();
        return new HostPort(a.getAddress().getHostAddress(), a.getPort());
    }

    @Override
    public void close() {
        refresher.shutdownNow();
        server.stop(0);
        threads.shutdownNow();
    }

    private void handle(HttpExchange exchange) {
        try (exchange) {
            byte[] body;
            try (InputStream in = exchange.getRequestBody()) {
                body = in.readNBytes(MAX_BODY + 1);
            }
            if (body.length > MAX_BODY) {
                reply(exchange, 413, "request body over " + MAX_BODY + " bytes");
                return;
            }
            String method = exchange.getRequestMethod();
            String path = exchange.getRequestURI().getRawPath();
            if (READY.equals(path) && "GET".equals(method)) {
                boolean now = ready.getAsBoolean();
                reply(exchange, now ? 200 : 503, now ? "ready\n" : "warming up\n");
                return;
            }
            if (IDENTITY.equals(path) && "GET".equals(method)) {
                reply(exchange, 200, view.sip() + "\n");
                return;
            }
            Optional<AdminSignature.Verified> signed = signature.verify(
                    exchange.getRequestHeaders().getFirst("Authorization"), method, path, body, clock.instant());
            if (signed.isEmpty() || !firstSight(signed.get().nonce())) {
                reply(exchange, 401, "not signed with this cluster's secret, out of time, or replayed");
                return;
            }
            if (!signed.get().target().equals(view.sip().toString())) {
                reply(exchange, 401, "signed for the node " + signed.get().target() + ", not this one ("
                        + view.sip() + ")");
                return;
            }
            if (!firstSightInCluster(signed.get().nonce())) {
                reply(exchange, 401, "replayed: another node of the cluster has seen this request");
                return;
            }
            Optional<byte[]> opened = opened(exchange, body);
            if (opened.isEmpty()) {
                reply(exchange, 400, "the body is not sealed with this cluster's key (" + AdminBodyCipher.HEADER
                        + ": " + AdminBodyCipher.SCHEME + ")");
                return;
            }
            String text = new String(opened.get(), StandardCharsets.UTF_8);
            switch (method + " " + path) {
                case "GET /v1/domains" -> reply(exchange, 200, domainsText());
                case "GET /v1/users" -> reply(exchange, 200, listText(await(credentials.list())));
                case "POST /v1/users" -> addUsers(exchange, text);
                case "DELETE /v1/users" -> removeUsers(exchange, text);
                case "GET /v1/node" -> reply(exchange, 200, nodeText());
                case "GET /v1/members" -> reply(exchange, 200, membersText(await(directory.live())));
                default -> {
                    if (path.startsWith(AORS) && ("GET".equals(method) || "DELETE".equals(method))) {
                        aor(exchange, method, exchange.getRequestURI().getPath().substring(AORS.length()));
                    } else {
                        reply(exchange, path.startsWith("/v1/domains") || path.startsWith("/v1/users")
                                || path.startsWith("/v1/node") || path.startsWith("/v1/members")
                                || path.startsWith(AORS) ? 405 : 404,
                                "no " + method + " " + path);
                    }
                }
            }
        } catch (RuntimeException | IOException e) {
            LOG.warn("admin request failed: {}", e.toString());
            try {
                reply(exchange, 500, String.valueOf(e.getMessage()));
            } catch (IOException ignored) {
                // The client has gone; nothing else to tell it.
            }
        }
    }

    private static String membersText(List<AdminDirectory.Entry> entries) {
        StringBuilder b = new StringBuilder();
        for (AdminDirectory.Entry e : entries) {
            b.append(e.admin()).append(' ').append(e.sip()).append('\n');
        }
        return b.toString();
    }

    /**
     * This node as {@code p2psip status} shows it, one {@code NAME VALUE}
     * line each: {@code id}, {@code sip}, {@code backend}, {@code stored}
     * (values held, or {@code -}), {@code owns} (share of the key space, 0
     * to 1, or {@code -}), {@code requests}, {@code registers} and
     * {@code invites} (received so far; two readings give rates) and
     * {@code uptime} in seconds.
     */
    private String nodeText() {
        Dht dht = view.dht();
        long stored = dht.storedEntries();
        OptionalDouble share = dht.ownedShare();
        long requests = 0;
        long registers = 0;
        long invites = 0;
        for (SipTraffic.MethodCount c : view.traffic().requests()) {
            requests += c.count();
            if (c.method().equals("REGISTER")) {
                registers = c.count();
            } else if (c.method().equals("INVITE")) {
                invites = c.count();
            }
        }
        return "id " + dht.self().id() + "\n"
                + "sip " + view.sip() + "\n"
                + "backend " + dht.backendName() + "\n"
                + "stored " + (stored < 0 ? "-" : Long.toString(stored)) + "\n"
                + "owns " + (share.isPresent() ? Double.toString(share.getAsDouble()) : "-") + "\n"
                + "requests " + requests + "\n"
                + "registers " + registers + "\n"
                + "invites " + invites + "\n"
                + "uptime " + ManagementFactory.getRuntimeMXBean().getUptime() / 1000 + "\n";
    }

    private void aor(HttpExchange exchange, String method, String name) throws IOException {
        AddressOfRecord aor;
        try {
            aor = AddressOfRecord.parse(name.regionMatches(true, 0, "sip:", 0, 4) ? name : "sip:" + name);
            if (aor.user().isEmpty()) {
                throw new IllegalArgumentException(AdminClient.missingPart(name, domains.defaultDomain()));
            }
            requireServed(aor);
        } catch (IllegalArgumentException e) {
            reply(exchange, 400, e.getMessage());
            return;
        }
        List<Binding> bindings = await(view.locations().lookup(aor));
        if ("GET".equals(method)) {
            reply(exchange, 200, aorText(aor, bindings, await(view.dht().placement(aor.key()))));
            return;
        }
        if (bindings.isEmpty()) {
            reply(exchange, 200, "removed 0");
            return;
        }
        byte[] id = new byte[12];
        random.nextBytes(id);
        RegisterRequest removal = new RegisterRequest(aor, List.of(ContactSpec.wildcard()), OptionalLong.of(0),
                "admin-" + HexFormat.of().formatHex(id), 1, List.of(), view.sip(), "admin");
        RegisterOutcome outcome = await(view.locations().register(removal));
        if (outcome instanceof RegisterOutcome.Rejected rejected) {
            reply(exchange, 500, "the location service refused the removal: " + rejected.statusCode() + " "
                    + rejected.reason());
            return;
        }
        reply(exchange, 200, "removed " + bindings.size());
    }

    /**
     * One AOR as {@code p2psip aor show} reads it: {@code aor URI}; {@code
     * owner ID SIP} and a {@code replica ID SIP} line per other copy
     * ({@code -} for a peer without a SIP address); then a {@code binding
     * SECONDS Q CONTACT} line per live binding, highest q first, with
     * {@code -} for an unset q.
     */
    private String aorText(AddressOfRecord aor, List<Binding> bindings, Placement placement) {
        StringBuilder b = new StringBuilder();
        b.append("aor ").append(aor).append('\n');
        b.append("owner ").append(peerText(placement.owner())).append('\n');
        placement.replicas().forEach(p -> b.append("replica ").append(peerText(p)).append('\n'));
        Instant now = clock.instant();
        for (Binding binding : bindings) {
            b.append("binding ").append(binding.secondsLeft(now)).append(' ')
                    .append(binding.q() == Binding.Q_UNSPECIFIED ? "-" : Integer.toString(binding.q())).append(' ')
                    .append(binding.contact()).append('\n');
        }
        return b.toString();
    }

    private static String peerText(Peer peer) {
        return peer.id() + " " + peer.sip().map(HostPort::toString).orElse("-");
    }

    private void addUsers(HttpExchange exchange, String text) throws IOException {
        List<UserCredentials> users;
        try {
            users = UserLines.parseCredentials(text);
            for (UserCredentials u : users) {
                requireServed(u.aor());
                if (!u.realm().equals(u.aor().host())) {
                    throw new IllegalArgumentException(u.aor() + ": realm must be the user's domain " + u.aor().host());
                }
            }
        } catch (IllegalArgumentException e) {
            reply(exchange, 400, e.getMessage());
            return;
        }
        await(credentials.putAll(users));
        reply(exchange, 200, "added " + users.size());
    }

    private void removeUsers(HttpExchange exchange, String text) throws IOException {
        List<AddressOfRecord> aors;
        try {
            aors = UserLines.parseAors(text);
        } catch (IllegalArgumentException e) {
            reply(exchange, 400, e.getMessage());
            return;
        }
        int removed = 0;
        for (AddressOfRecord a : aors) {
            if (await(credentials.remove(a))) {
                removed++;
            }
        }
        reply(exchange, 200, "removed " + removed);
    }

    private void requireServed(AddressOfRecord aor) {
        if (!domains.domains().contains(aor.host())) {
            throw new IllegalArgumentException(aor + ": domain " + aor.host() + " is not served by this cluster (serves "
                    + String.join(", ", domains.domains()) + ")");
        }
    }

    private String domainsText() {
        StringBuilder b = new StringBuilder();
        domains.domains().forEach(d -> b.append("domain ").append(d).append('\n'));
        domains.aliases().forEach(a -> b.append("alias ").append(a).append('\n'));
        return b.toString();
    }

    private static String listText(List<AddressOfRecord> aors) {
        StringBuilder b = new StringBuilder();
        aors.forEach(a -> b.append(a).append('\n'));
        return b.toString();
    }

    /**
     * Whether no node of the cluster has taken a request with {@code nonce}
     * (a put-if-absent in the DHT, kept as long as the signature window
     * lets the request be used), so that one captured at one node is no
     * good at another.
     */
    private boolean firstSightInCluster(String nonce) {
        Instant now = clock.instant();
        return await(view.dht().putIfVersion(nonce + "#admin-nonce", Dht.ABSENT, new byte[] {1},
                now.plus(AdminSignature.WINDOW.multipliedBy(2))));
    }

    /** The body as sent: opened when sealed, empty when it should have been and is not. */
    private Optional<byte[]> opened(HttpExchange exchange, byte[] body) {
        boolean sealed = AdminBodyCipher.SCHEME.equals(exchange.getRequestHeaders().getFirst(AdminBodyCipher.HEADER));
        if (!sealed) {
            return body.length == 0 ? Optional.of(body) : Optional.empty();
        }
        return cipher.open(body);
    }

    private boolean firstSight(String nonce) {
        long now = clock.millis();
        if (seen.size() > 10_000) {
            seen.values().removeIf(until -> until < now);
        }
        return seen.putIfAbsent(nonce, now + 2 * AdminSignature.WINDOW.toMillis()) == null;
    }

    private static <T> T await(java.util.concurrent.CompletableFuture<T> f) {
        try {
            return f.get(DHT_WAIT.toSeconds(), TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted");
        } catch (ExecutionException e) {
            throw new IllegalStateException("the DHT failed: " + e.getCause().getMessage(), e.getCause());
        } catch (TimeoutException e) {
            throw new IllegalStateException("the DHT did not answer within " + DHT_WAIT.toSeconds() + " s");
        }
    }

    private static void reply(HttpExchange exchange, int status, String text) throws IOException {
        byte[] bytes = text.getBytes(StandardCharsets.UTF_8);
        exchange.getResponseHeaders().set("Content-Type", "text/plain; charset=utf-8");
        exchange.sendResponseHeaders(status, bytes.length == 0 ? -1 : bytes.length);
        if (bytes.length > 0) {
            try (OutputStream out = exchange.getResponseBody()) {
                out.write(bytes);
            }
        }
    }
}
