package org.p2psip.servlet.admin;

import java.net.URLDecoder;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalInt;

import org.p2psip.core.auth.DigestAlgorithm;
import org.p2psip.core.auth.UserCredentials;
import org.p2psip.core.location.AddressOfRecord;

/**
 * The admin endpoint's body format for users, one per line, fields
 * separated by tabs: the AOR's user (URL-encoded, so any user part
 * survives), its domain, then for credentials the realm and
 * {@code ALGORITHM=HA1} pairs. Passwords never travel: the client computes
 * HA1.
 */
public final class UserLines {

    private UserLines() {
    }

    public static String credentials(List<UserCredentials> users) {
        StringBuilder b = new StringBuilder(users.size() * 200);
        for (UserCredentials u : users) {
            b.append(aor(u.aor())).append('\t').append(u.realm());
            for (Map.Entry<DigestAlgorithm, String> e : u.ha1().entrySet()) {
                b.append('\t').append(e.getKey().token()).append('=').append(e.getValue());
            }
            b.append('\n');
        }
        return b.toString();
    }

    public static List<UserCredentials> parseCredentials(String body) {
        List<UserCredentials> users = new ArrayList<>();
        int n = 0;
        for (String line : body.split("\n")) {
            n++;
            if (line.isBlank()) {
                continue;
            }
            String[] f = line.split("\t");
            if (f.length < 4) {
                throw new IllegalArgumentException("line " + n + ": expected user, domain, realm and HA1 values");
            }
            Map<DigestAlgorithm, String> ha1 = new EnumMap<>(DigestAlgorithm.class);
            for (int i = 3; i < f.length; i++) {
                int eq = f[i].indexOf('=');
                String token = eq < 0 ? f[i] : f[i].substring(0, eq);
                DigestAlgorithm a = DigestAlgorithm.byToken(token).orElseThrow(
                        () -> new IllegalArgumentException("unknown digest algorithm '" + token + "'"));
                ha1.put(a, f[i].substring(eq + 1));
            }
            try {
                users.add(new UserCredentials(aor(f[0], f[1]), f[2], ha1));
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException("line " + n + ": " + e.getMessage());
            }
        }
        return users;
    }

    public static String aors(List<AddressOfRecord> aors) {
        StringBuilder b = new StringBuilder();
        aors.forEach(a -> b.append(aor(a)).append('\n'));
        return b.toString();
    }

    public static List<AddressOfRecord> parseAors(String body) {
        List<AddressOfRecord> aors = new ArrayList<>();
        for (String line : body.split("\n")) {
            if (!line.isBlank()) {
                String[] f = line.split("\t");
                if (f.length != 2) {
                    throw new IllegalArgumentException("expected user and domain, got '" + line + "'");
                }
                aors.add(aor(f[0], f[1]));
            }
        }
        return aors;
    }

    private static String aor(AddressOfRecord a) {
        return URLEncoder.encode(a.user(), StandardCharsets.UTF_8) + "\t" + a.host();
    }

    private static AddressOfRecord aor(String user, String host) {
        return new AddressOfRecord(URLDecoder.decode(user, StandardCharsets.UTF_8), host, OptionalInt.empty());
    }
}
