package org.p2psip.core.auth;

import java.util.Optional;

import org.p2psip.core.location.AddressOfRecord;

/**
 * Whom a proxy that serves some domains forwards for (DESIGN.md, "Trust
 * model"), as pure functions; the decision Kamailio's and OpenSIPS's
 * default configurations make.
 *
 * <ul>
 *   <li>A request that came back on a Route this cluster recorded for its
 *       dialog goes on: the dialog was accepted when it was set up.</li>
 *   <li>A request whose From is a local user must prove it with digest
 *       credentials (407) when authentication is required, whatever its
 *       target, so nothing is forwarded for an unauthenticated local
 *       sender; once proven, it may go anywhere, but only From the user's
 *       own address.</li>
 *   <li>A request from another domain may reach local targets only: that
 *       is how a domain receives calls. Towards a foreign target it would
 *       make the cluster an open relay: 403.</li>
 * </ul>
 * With authentication off a local From is taken at its word, as
 * Kamailio's default configuration does without {@code WITH_AUTH}.
 */
public final class RelayRules {

    /** What to do with a request. */
    public enum Action {
        /** Route it. */
        FORWARD,
        /** Ask for credentials (407), or check the ones it carries. */
        AUTHENTICATE,
        /** 403 Relaying forbidden. */
        FORBID
    }

    /**
     * What is known about a request before any credentials are checked.
     *
     * @param senderLocal    its From URI is in a served domain or at an alias
     * @param targetLocal    where it goes next (the top Route left after this node's own, else the
     *                       Request-URI) is in a served domain or at an alias
     * @param recordedRoute  it arrived on a Route this cluster recorded for its dialog (a valid
     *                       {@link DialogTokens} token)
     */
    public record Facts(boolean senderLocal, boolean targetLocal, boolean recordedRoute) {
    }

    private RelayRules() {
    }

    /** The decision before credentials are looked at. */
    public static Action beforeAuthentication(Facts facts, boolean authRequired) {
        if (facts.recordedRoute()) {
            return Action.FORWARD;
        }
        if (facts.senderLocal()) {
            return authRequired ? Action.AUTHENTICATE : Action.FORWARD;
        }
        return facts.targetLocal() ? Action.FORWARD : Action.FORBID;
    }

    /**
     * The decision once {@code user} has proven its credentials: forward
     * when the request is From the user's own AOR, else 403 (a local user
     * may not send in another user's name).
     *
     * @param from the request's From AOR, canonical
     */
    public static Action afterAuthentication(UserCredentials user, Optional<AddressOfRecord> from) {
        return from.filter(user::owns).isPresent() ? Action.FORWARD : Action.FORBID;
    }
}
