package org.p2psip.servlet.admin;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.List;

import org.junit.jupiter.api.Test;
import org.p2psip.core.auth.UserCredentials;
import org.p2psip.core.location.AddressOfRecord;

class UserLinesTest {

    @Test
    void credentialsAndAorsReadBackWhateverTheUserPartHolds() {
        List<UserCredentials> users = List.of(
                UserCredentials.fromPassword(AddressOfRecord.parse("sip:alice@p2psip.test"), "a"),
                UserCredentials.fromPassword(AddressOfRecord.parse("sip:a%09b%0Ac@p2psip.test"), "b"));
        assertEquals(users, UserLines.parseCredentials(UserLines.credentials(users)));
        List<AddressOfRecord> aors = users.stream().map(UserCredentials::aor).toList();
        assertEquals(aors, UserLines.parseAors(UserLines.aors(aors)));
    }

    @Test
    void aBadLineIsRefusedWithItsNumber() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> UserLines.parseCredentials("alice\tp2psip.test\tp2psip.test\tSHA-1=abc\n"));
        assertEquals("unknown digest algorithm 'SHA-1'", e.getMessage());
        IllegalArgumentException short_ = assertThrows(IllegalArgumentException.class,
                () -> UserLines.parseCredentials("\nalice\tp2psip.test\n"));
        assertEquals("line 2: expected user, domain, realm and HA1 values", short_.getMessage());
    }
}
