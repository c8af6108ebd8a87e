package org.p2psip.servlet.admin;

import java.io.IOException;
import java.net.ConnectException;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpTimeoutException;
import java.nio.charset.StandardCharsets;
import java.security.SecureRandom;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalDouble;
import java.util.OptionalInt;
import java.util.OptionalLong;
import java.util.stream.Collectors;

import org.p2psip.core.auth.UserCredentials;
import org.p2psip.core.location.AddressOfRecord;
import org.p2psip.core.location.ServedDomains;
import org.p2psip.core.net.HostPort;

/**
 * The client side of {@link AdminServer}: signs each request with the
 * cluster secret and tries the given nodes in order until one answers, so
 * any live node of the cluster will do.
 */
public final class AdminClient {

    /** Users sent per request by {@link #putUsers}. */
    public static final int BATCH = 2000;

    private final List<HostPort> nodes;
    private final AdminSignature signature;
    private final Clock clock;
    private final HttpClient http;
    private final SecureRandom random = new SecureRandom();
    private final AdminBodyCipher cipher;
    private final Map<HostPort, String> identities = new ConcurrentHashMap<>();

    public AdminClient(List<HostPort> nodes, byte[] secret, Clock clock) {
        if (nodes.isEmpty()) {
            throw new IllegalArgumentException("at least one admin address is needed");
        }
        this.nodes = List.copyOf(nodes);
        this.signature = new AdminSignature(secret);
        this.cipher = new AdminBodyCipher(secret);
        this.clock = clock;
        this.http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
    }

    /** The cluster's served domains and aliases, as its nodes see them. */
    public ServedDomains domains() throws AdminException {
        List<String> names = new ArrayList<>();
        List<HostPort> aliases = new ArrayList<>();
        for (String line : call("GET", "/v1/domains", "").split("\n")) {
            if (line.startsWith("domain ")) {
                names.add(line.substring(7).trim());
            } else if (line.startsWith("alias ")) {
                aliases.add(HostPort.parse(line.substring(6).trim()));
            }
        }
        try {
            return new ServedDomains(names, aliases);
        } catch (IllegalArgumentException e) {
            throw new AdminException("the node described its domains in a way this client cannot read: " + e.getMessage());
        }
    }

    /** Adds or replaces {@code users}, {@link #BATCH} per request; returns how many were written. */
    public int putUsers(List<UserCredentials> users) throws AdminException {
        int written = 0;
        for (int from = 0; from < users.size(); from += BATCH) {
            List<UserCredentials> batch = users.subList(from, Math.min(users.size(), from + BATCH));
            call("POST", "/v1/users", UserLines.credentials(batch));
            written += batch.size();
        }
        return written;
    }

    /** Removes {@code aor}'s credentials; whether it had any. */
    public boolean removeUser(AddressOfRecord aor) throws AdminException {
        return call("DELETE", "/v1/users", UserLines.aors(List.of(aor))).trim().equals("removed 1");
    }

    /** Every user of the cluster, as {@code sip:user@domain}. */
    public List<String> listUsers() throws AdminException {
        List<String> users = new ArrayList<>();
        for (String line : call("GET", "/v1/users", "").split("\n")) {
            if (!line.isBlank()) {
                users.add(line);
            }
        }
        return users;
    }

    /** A peer as the admin endpoint names it: its DHT id and SIP address, if it has one. */
    public record PeerReport(String id, Optional<String> sip) {
    }

    /** A live binding: seconds left, its q if set (0..1000), its contact. */
    public record BindingReport(long secondsLeft, OptionalInt q, String contact) {
    }

    /** An AOR's bindings and where the DHT keeps them. */
    public record AorReport(String aor, PeerReport owner, List<PeerReport> replicas, List<BindingReport> bindings) {
    }

    /**
     * One node as its admin endpoint describes itself.
     *
     * @param stored values its DHT holds, empty when the backend cannot tell
     * @param owns   the share of the key space it owns (0 to 1), empty when the backend cannot tell
     */
    public record NodeReport(HostPort admin, String id, String sip, String backend, OptionalLong stored,
                             OptionalDouble owns, long requests, long registers, long invites, long uptimeSeconds) {
    }

    /** {@code aor}'s bindings, owner and replicas, from the first node that answers. */
    public AorReport aor(AddressOfRecord aor) throws AdminException {
        String text = call("GET", aorPath(aor), "");
        String name = aor.toString();
        PeerReport owner = null;
        List<PeerReport> replicas = new ArrayList<>();
        List<BindingReport> bindings = new ArrayList<>();
        try {
            for (String line : text.split("\n")) {
                String[] f = line.split(" ", 4);
                switch (f[0]) {
                    case "aor" -> name = f[1];
                    case "owner" -> owner = peer(f);
                    case "replica" -> replicas.add(peer(f));
                    case "binding" -> bindings.add(new BindingReport(Long.parseLong(f[1]),
                            f[2].equals("-") ? OptionalInt.empty() : OptionalInt.of(Integer.parseInt(f[2])), f[3]));
                    default -> {
                        // A line a newer node adds: not this client's business.
                    }
                }
            }
        } catch (RuntimeException e) {
            throw new AdminException("the node described " + aor + " in a way this client cannot read: " + e);
        }
        if (owner == null) {
            throw new AdminException("the node named no owner for " + aor);
        }
        return new AorReport(name, owner, replicas, bindings);
    }

    /** Removes every binding of {@code aor}; how many there were. */
    public int removeAor(AddressOfRecord aor) throws AdminException {
        String text = call("DELETE", aorPath(aor), "").trim();
        if (!text.startsWith("removed ")) {
            throw new AdminException("unexpected answer to a removal: " + text);
        }
        return Integer.parseInt(text.substring(8).trim());
    }

    /** Each node's own report, in the order given; a node that does not answer is an exception in its place. */
    public List<Result<NodeReport>> nodes() {
        return nodes(nodes);
    }

    /**
     * The admin endpoints given, then every other one the cluster's
     * directory lists ({@link AdminDirectory}), as the first given endpoint
     * that answers reports it; only those given when none does.
     */
    public List<HostPort> clusterEndpoints() {
        Set<HostPort> all = new LinkedHashSet<>(nodes);
        for (HostPort node : nodes) {
            try {
                for (String line : callOne(node, "GET", "/v1/members", "").split("\n")) {
                    String[] f = line.strip().split(" ");
                    if (!f[0].isEmpty()) {
                        all.add(HostPort.parse(f[0]));
                    }
                }
                break;
            } catch (AdminException | IllegalArgumentException e) {
                // An older node, or one that is down: the next one given may know.
            }
        }
        return List.copyOf(all);
    }

    /** Each of {@code endpoints} as it describes itself, or why it did not. */
    public List<Result<NodeReport>> nodes(List<HostPort> endpoints) {
        List<Result<NodeReport>> out = new ArrayList<>();
        for (HostPort node : endpoints) {
            try {
                out.add(new Result<>(node, Optional.of(node(node)), Optional.empty()));
            } catch (AdminException e) {
                out.add(new Result<>(node, Optional.empty(), Optional.of(e)));
            }
        }
        return out;
    }

    /** What one admin endpoint answered, or why it did not. */
    public record Result<T>(HostPort admin, Optional<T> value, Optional<AdminException> failure) {
    }

    private NodeReport node(HostPort node) throws AdminException {
        Map<String, String> f = new HashMap<>();
        for (String line : callOne(node, "GET", "/v1/node", "").split("\n")) {
            int space = line.indexOf(' ');
            if (space > 0) {
                f.put(line.substring(0, space), line.substring(space + 1).trim());
            }
        }
        try {
            return new NodeReport(node, f.get("id"), f.get("sip"), f.get("backend"),
                    "-".equals(f.get("stored")) ? OptionalLong.empty() : OptionalLong.of(Long.parseLong(f.get("stored"))),
                    "-".equals(f.get("owns")) ? OptionalDouble.empty() : OptionalDouble.of(Double.parseDouble(f.get("owns"))),
                    Long.parseLong(f.get("requests")), Long.parseLong(f.get("registers")),
                    Long.parseLong(f.get("invites")), Long.parseLong(f.get("uptime")));
        } catch (RuntimeException e) {
            throw new AdminException(node + " described itself in a way this client cannot read: " + f);
        }
    }

    private static PeerReport peer(String[] fields) {
        return new PeerReport(fields[1], fields[2].equals("-") ? Optional.empty() : Optional.of(fields[2]));
    }

    private static String aorPath(AddressOfRecord aor) {
        // The user part may hold characters a path may not (RFC 3261 §25.1 allows ?, / and escapes).
        return "/v1/aors/" + URLEncoder.encode(aor.key(), StandardCharsets.UTF_8).replace("+", "%20");
    }

    /** {@code user@domain} (or a sip: URI) as the cluster names it: aliases become the default domain. */
    public static AddressOfRecord canonical(String text, ServedDomains domains) throws AdminException {
        String uri = text.regionMatches(true, 0, "sip:", 0, 4) || text.regionMatches(true, 0, "sips:", 0, 5)
                ? text : "sip:" + text;
        AddressOfRecord aor;
        try {
            aor = AddressOfRecord.parse(uri);
        } catch (IllegalArgumentException e) {
            throw new AdminException("'" + text + "' is not a user address: " + e.getMessage());
        }
        if (aor.user().isEmpty()) {
            throw new AdminException(missingPart(text, domains.defaultDomain()));
        }
        return domains.canonical(aor).map(a -> new AddressOfRecord(a.user(), a.host(), OptionalInt.empty()))
                .orElseThrow(() -> new AdminException("'" + text + "': domain " + aor.host()
                        + " is not served by this cluster (serves " + String.join(", ", domains.domains()) + ")"));
    }

    /**
     * What {@code text}, a user address without a user part, lacks: a bare
     * {@code bob} parses as a host, but what its writer left out is the
     * domain.
     */
    public static String missingPart(String text, String domain) {
        String bare = text.replaceFirst("(?i)^sips?:", "");
        if (!bare.isEmpty() && bare.indexOf('@') < 0) {
            return "'" + text + "' has no domain: write it as " + bare + "@" + domain;
        }
        return "'" + text + "' has no user part";
    }

    /** The first answer of the nodes in turn; when none answers, one error that names every one tried. */
    private String call(String method, String path, String body) throws AdminException {
        List<Unreachable> failures = new ArrayList<>();
        for (HostPort node : nodes) {
            try {
                return callOne(node, method, path, body);
            } catch (Unreachable e) {
                failures.add(e);
            }
        }
        if (failures.size() == 1) {
            throw failures.get(0);
        }
        throw new AdminException("no admin endpoint answered: " + failures.stream()
                .map(f -> f.node + " (" + f.reason + ")").collect(Collectors.joining(", ")));
    }

    /** A node that could not be reached: the next one may answer. */
    public static final class Unreachable extends AdminException {
        final HostPort node;
        final String reason;

        Unreachable(HostPort node, String reason, String message) {
            super(message);
            this.node = node;
            this.reason = reason;
        }
    }

    private String callOne(HostPort node, String method, String path, String body) throws AdminException {
        String target = identity(node);
        byte[] bytes = body.isEmpty() ? new byte[0] : cipher.seal(body.getBytes(StandardCharsets.UTF_8), random);
        byte[] n = new byte[12];
        random.nextBytes(n);
        HttpRequest.Builder request = HttpRequest.newBuilder(uri(node, path))
                .timeout(Duration.ofSeconds(180))
                .header("Authorization", signature.sign(method, path, target, clock.instant(),
                        HexFormat.of().formatHex(n), bytes))
                .method(method, HttpRequest.BodyPublishers.ofByteArray(bytes));
        if (bytes.length > 0) {
            request.header(AdminBodyCipher.HEADER, AdminBodyCipher.SCHEME);
        }
        return answer(node, send(node, request.build()));
    }

    /**
     * The node's SIP address, which signatures name ({@link AdminSignature}),
     * asked once per endpoint. Told unsigned: a liar could only make the
     * request one that no node takes.
     */
    private String identity(HostPort node) throws AdminException {
        String known = identities.get(node);
        if (known != null) {
            return known;
        }
        HttpResponse<String> r = send(node, HttpRequest.newBuilder(uri(node, "/v1/identity"))
                .timeout(Duration.ofSeconds(30)).GET().build());
        String id = answer(node, r).strip();
        if (id.isEmpty() || id.contains(",") || id.contains("\n")) {
            throw new AdminException(node + " did not say which node it is (an older release?)");
        }
        identities.put(node, id);
        return id;
    }

    private static URI uri(HostPort node, String path) {
        return URI.create("http://" + uriHost(node) + ":" + node.port() + path);
    }

    private HttpResponse<String> send(HostPort node, HttpRequest request) throws AdminException {
        try {
            return http.send(request, HttpResponse.BodyHandlers.ofString(StandardCharsets.UTF_8));
        } catch (ConnectException | HttpTimeoutException e) {
            throw new Unreachable(node, "no answer", "no admin endpoint answers at " + node);
        } catch (IOException e) {
            String reason = e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage();
            throw new Unreachable(node, reason, "admin endpoint " + node + ": " + reason);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AdminException("interrupted");
        }
    }

    private static String answer(HostPort node, HttpResponse<String> response) throws AdminException {
        if (response.statusCode() == 200) {
            return response.body();
        }
        String reason = response.body().strip().replace('\n', ' ');
        throw new AdminException(switch (response.statusCode()) {
            case 401 -> node + " refused the request: " + reason + " (is the cluster secret the nodes' one?)";
            default -> node + " answered " + response.statusCode() + ": " + reason;
        });
    }

    private static String uriHost(HostPort node) {
        return node.host().indexOf(':') >= 0 ? "[" + node.host() + "]" : node.host();
    }

    /** An admin request that failed, with a one-line reason. */
    public static class AdminException extends Exception {
        public AdminException(String message) {
            super(message, null, false, false);
        }
    }
}
