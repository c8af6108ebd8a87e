package org.p2psip.core.location;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalInt;

import org.p2psip.core.net.HostPort;

/**
 * The domains a cluster is responsible for, and the addresses that mean
 * its default domain (DESIGN.md, "Trust model").
 *
 * <p>A URI is local when its host is a served domain, whatever its port (as
 * Kamailio's and OpenSIPS's domain tables compare hosts), or when its
 * host and port are one of the {@link #aliases}: the nodes' and the
 * balancer's own addresses, where a URI without a port matches too, since
 * a phone that registers {@code alice@<node-ip>} means the service it talks
 * to. A local AOR is canonicalised to its served domain without a port
 * ({@link #canonical}), so {@code alice@<node-ip>}, {@code alice@<node-ip>:5060}
 * and {@code alice@example.com} name one user when example.com is the
 * default domain.
 *
 * @param domains the served domains, lower-case; the first is the default
 * @param aliases host:port values that are the default domain
 */
public record ServedDomains(List<String> domains, List<HostPort> aliases) {

    public ServedDomains {
        Objects.requireNonNull(domains, "domains");
        Objects.requireNonNull(aliases, "aliases");
        if (domains.isEmpty()) {
            throw new IllegalArgumentException("at least one served domain is needed");
        }
        List<String> lower = new ArrayList<>();
        for (String d : domains) {
            String l = checkDomain(d);
            if (!lower.contains(l)) {
                lower.add(l);
            }
        }
        domains = List.copyOf(lower);
        aliases = List.copyOf(aliases.stream().distinct().toList());
    }

    /** A single domain with the given aliases. */
    public static ServedDomains of(String domain, HostPort... aliases) {
        return new ServedDomains(List.of(domain), List.of(aliases));
    }

    /** The domain AORs at an alias belong to, and the realm of challenges for them. */
    public String defaultDomain() {
        return domains.get(0);
    }

    /** The served domain a host and optional port belong to, if any. */
    public Optional<String> domainOf(String host, OptionalInt port) {
        if (host == null) {
            return Optional.empty();
        }
        String h = bare(host);
        for (String d : domains) {
            if (d.equals(h)) {
                return Optional.of(d);
            }
        }
        for (HostPort a : aliases) {
            if (a.host().equals(h) && (port.isEmpty() || port.getAsInt() == a.port())) {
                return Optional.of(defaultDomain());
            }
        }
        return Optional.empty();
    }

    /**
     * Whether host:port is exactly one of the {@link #aliases} (a node or
     * balancer of this cluster), as a Via's sent-by names it; a missing
     * port (0 or less) is 5060.
     */
    public boolean isAlias(String host, int port) {
        if (host == null) {
            return false;
        }
        String h = bare(host);
        int p = port > 0 ? port : 5060;
        return aliases.stream().anyMatch(a -> a.port() == p && a.host().equals(h));
    }

    private static String bare(String host) {
        String h = host.toLowerCase(Locale.ROOT);
        return h.startsWith("[") && h.endsWith("]") ? h.substring(1, h.length() - 1) : h;
    }

    /** Whether a URI with this host and port names something this cluster serves. */
    public boolean serves(String host, OptionalInt port) {
        return domainOf(host, port).isPresent();
    }

    /** Whether {@code uri} is in a served domain or at an alias. */
    public boolean serves(SipUri uri) {
        return serves(uri.host(), uri.port());
    }

    /** {@code aor} in a served domain, without a port; empty when its domain is not served. */
    public Optional<AddressOfRecord> canonical(AddressOfRecord aor) {
        return domainOf(aor.host(), aor.port()).map(d -> new AddressOfRecord(aor.user(), d, OptionalInt.empty()));
    }

    private static String checkDomain(String d) {
        if (d == null || d.isBlank()) {
            throw new IllegalArgumentException("a served domain must not be empty");
        }
        String l = d.trim().toLowerCase(Locale.ROOT);
        if (l.startsWith("[") && l.endsWith("]")) {
            l = l.substring(1, l.length() - 1);
        }
        try {
            SipUri parsed = SipUri.parse("sip:" + (l.indexOf(':') >= 0 ? "[" + l + "]" : l));
            if (!parsed.host().equals(l)) {
                throw new IllegalArgumentException("'" + d + "' is not a domain name or address");
            }
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("'" + d + "' is not a domain name or address (no port, no user)");
        }
        return l;
    }
}
