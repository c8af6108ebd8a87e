package org.p2psip.servlet.admin;

import java.io.IOException;
import java.net.ConnectException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpTimeoutException;
import java.nio.charset.StandardCharsets;
import java.security.SecureRandom;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.OptionalInt;

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

    public AdminClient(List<HostPort> nodes, byte[] secret, Clock clock) {
        if (nodes.isEmpty()) {
            throw new IllegalArgumentException("at least one admin address is needed");
        }
        this.nodes = List.copyOf(nodes);
        this.signature = new AdminSignature(secret);
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
            throw new AdminException("'" + text + "' has no user part");
        }
        return domains.canonical(aor).map(a -> new AddressOfRecord(a.user(), a.host(), OptionalInt.empty()))
                .orElseThrow(() -> new AdminException("'" + text + "': domain " + aor.host()
                        + " is not served by this cluster (serves " + String.join(", ", domains.domains()) + ")"));
    }

    private String call(String method, String path, String body) throws AdminException {
        byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
        AdminException last = null;
        for (HostPort node : nodes) {
            byte[] n = new byte[12];
            random.nextBytes(n);
            HttpRequest request = HttpRequest.newBuilder(URI.create("http://" + uriHost(node) + ":" + node.port() + path))
                    .timeout(Duration.ofSeconds(180))
                    .header("Authorization", signature.sign(method, path, clock.instant(), HexFormat.of().formatHex(n), bytes))
                    .method(method, HttpRequest.BodyPublishers.ofByteArray(bytes))
                    .build();
            HttpResponse<String> response;
            try {
                response = http.send(request, HttpResponse.BodyHandlers.ofString(StandardCharsets.UTF_8));
            } catch (ConnectException | HttpTimeoutException e) {
                last = new AdminException("no admin endpoint answers at " + node);
                continue;
            } catch (IOException e) {
                last = new AdminException("admin endpoint " + node + ": " + e.getMessage());
                continue;
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new AdminException("interrupted");
            }
            if (response.statusCode() == 200) {
                return response.body();
            }
            String reason = response.body().strip().replace('\n', ' ');
            throw new AdminException(switch (response.statusCode()) {
                case 401 -> node + " refused the request: " + reason + " (is the cluster secret the nodes' one?)";
                default -> node + " answered " + response.statusCode() + ": " + reason;
            });
        }
        throw last;
    }

    private static String uriHost(HostPort node) {
        return node.host().indexOf(':') >= 0 ? "[" + node.host() + "]" : node.host();
    }

    /** An admin request that failed, with a one-line reason. */
    public static final class AdminException extends Exception {
        public AdminException(String message) {
            super(message, null, false, false);
        }
    }
}
