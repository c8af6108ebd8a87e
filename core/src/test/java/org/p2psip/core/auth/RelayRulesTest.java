package org.p2psip.core.auth;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.Optional;

import org.junit.jupiter.api.Test;
import org.p2psip.core.auth.RelayRules.Action;
import org.p2psip.core.auth.RelayRules.Facts;
import org.p2psip.core.location.AddressOfRecord;

class RelayRulesTest {

    private static final AddressOfRecord ALICE = AddressOfRecord.parse("sip:alice@p2psip.test");
    private static final AddressOfRecord BOB = AddressOfRecord.parse("sip:bob@p2psip.test");

    @Test
    void aStrangerMayCallALocalUserButNotRelayElsewhere() {
        assertEquals(Action.FORWARD, RelayRules.beforeAuthentication(new Facts(false, true, false), true));
        assertEquals(Action.FORBID, RelayRules.beforeAuthentication(new Facts(false, false, false), true));
        assertEquals(Action.FORBID, RelayRules.beforeAuthentication(new Facts(false, false, false), false));
    }

    @Test
    void aLocalSenderMustAuthenticateWhateverTheTarget() {
        assertEquals(Action.AUTHENTICATE, RelayRules.beforeAuthentication(new Facts(true, true, false), true));
        assertEquals(Action.AUTHENTICATE, RelayRules.beforeAuthentication(new Facts(true, false, false), true));
    }

    @Test
    void withoutAuthenticationALocalSenderIsTakenAtItsWord() {
        assertEquals(Action.FORWARD, RelayRules.beforeAuthentication(new Facts(true, false, false), false));
    }

    @Test
    void aRequestOnARecordedRouteContinuesItsDialog() {
        assertEquals(Action.FORWARD, RelayRules.beforeAuthentication(new Facts(false, false, true), true));
        assertEquals(Action.FORWARD, RelayRules.beforeAuthentication(new Facts(true, false, true), true));
    }

    @Test
    void anAuthenticatedUserSendsOnlyFromItsOwnAddress() {
        UserCredentials alice = UserCredentials.fromPassword(ALICE, "pw");
        assertEquals(Action.FORWARD, RelayRules.afterAuthentication(alice, Optional.of(ALICE)));
        assertEquals(Action.FORBID, RelayRules.afterAuthentication(alice, Optional.of(BOB)));
        assertEquals(Action.FORBID, RelayRules.afterAuthentication(alice, Optional.empty()));
    }
}
