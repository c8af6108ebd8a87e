package org.p2psip.loadtest.bench;

import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

import org.p2psip.core.auth.UserCredentials;
import org.p2psip.core.location.ServedDomains;
import org.p2psip.servlet.admin.AdminClient;
import org.p2psip.servlet.admin.AdminClient.AdminException;

/**
 * Provisions the generator's users ({@link BenchAuth}) in the target
 * cluster through its admin endpoints, as {@code p2psip user import} would:
 * the bench users, and the built-in UAS's callees when the scenario has
 * one.
 */
public final class BenchUsers {

    private BenchUsers() {
    }

    /**
     * Adds or refreshes the {@code auth.users()} bench users and
     * {@code callees} UAS users of {@code domain} (host[:port] as the AORs
     * name it) through {@code auth}'s admin endpoints; throws
     * {@link BenchException} if it cannot.
     */
    public static void provision(BenchAuth auth, String domain, int callees) {
        AdminClient admin = new AdminClient(auth.admin(), auth.secret().orElseThrow().getBytes(StandardCharsets.UTF_8),
                Clock.systemUTC());
        try {
            ServedDomains domains = admin.domains();
            List<UserCredentials> users = new ArrayList<>(auth.users() + callees);
            for (int i = 0; i < auth.users(); i++) {
                users.add(credentials(BenchAuth.USER_PREFIX + i, domain, domains, auth.password()));
            }
            for (int i = 0; i < callees; i++) {
                users.add(credentials(BenchAuth.CALLEE_PREFIX + i, domain, domains, auth.password()));
            }
            admin.putUsers(users);
        } catch (AdminException e) {
            throw new BenchException(String.format(Locale.ROOT, "cannot provision the bench users: %s", e.getMessage()));
        }
    }

    private static UserCredentials credentials(String user, String domain, ServedDomains domains, String password)
            throws AdminException {
        return UserCredentials.fromPassword(AdminClient.canonical(user + "@" + domain, domains), password);
    }
}
