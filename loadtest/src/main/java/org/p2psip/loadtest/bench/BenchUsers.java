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

    /** Adds or refreshes every user {@code spec} will authenticate as; throws {@link BenchException} if it cannot. */
    public static void provision(LoadSpec spec) {
        BenchAuth auth = spec.auth();
        AdminClient admin = new AdminClient(auth.admin(), auth.secret().orElseThrow().getBytes(StandardCharsets.UTF_8),
                Clock.systemUTC());
        try {
            ServedDomains domains = admin.domains();
            List<UserCredentials> users = new ArrayList<>(auth.users() + spec.aors());
            for (int i = 0; i < auth.users(); i++) {
                users.add(credentials(BenchAuth.USER_PREFIX + i, spec, domains));
            }
            if (spec.scenario().needsUas()) {
                for (int i = 0; i < spec.aors(); i++) {
                    users.add(credentials(BenchAuth.CALLEE_PREFIX + i, spec, domains));
                }
            }
            admin.putUsers(users);
        } catch (AdminException e) {
            throw new BenchException(String.format(Locale.ROOT, "cannot provision the bench users: %s", e.getMessage()));
        }
    }

    private static UserCredentials credentials(String user, LoadSpec spec, ServedDomains domains) throws AdminException {
        return UserCredentials.fromPassword(AdminClient.canonical(user + "@" + spec.effectiveDomain(), domains),
                spec.auth().password());
    }
}
