package org.p2psip.core.guard;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;

import org.junit.jupiter.api.Test;

class CredentialFreeBudgetTest {

    private static final long SECOND = 1_000_000_000L;

    private static boolean governs(String message) {
        byte[] data = message.getBytes(StandardCharsets.US_ASCII);
        return CredentialFreeBudget.governs(data, data.length);
    }

    @Test
    void aBurstPassesThenTheRateHolds() {
        CredentialFreeBudget budget = new CredentialFreeBudget(100, 10, 0);
        int admitted = 0;
        for (int i = 0; i < 50; i++) {
            admitted += budget.admit(5 * SECOND) ? 1 : 0;
        }
        assertEquals(10, admitted, "an idle budget holds its burst, no more");
        assertEquals(40, budget.dropped());
        assertFalse(budget.admit(5 * SECOND + SECOND / 200), "half a token later: still none");
        assertTrue(budget.admit(5 * SECOND + SECOND / 100), "one token a hundredth of a second");
        int inASecond = 0;
        for (long t = 6 * SECOND; t < 7 * SECOND; t += SECOND / 1000) {
            inASecond += budget.admit(t) ? 1 : 0;
        }
        assertTrue(inASecond >= 100 && inASecond <= 111, "the rate, plus what refilled meanwhile: " + inASecond);
    }

    @Test
    void onlyCredentialFreeRequestsThatCanOnlyBeChallengedAreGoverned() {
        String register = "REGISTER sip:example.com SIP/2.0\r\nVia: SIP/2.0/UDP 10.0.0.1;branch=z9hG4bKa\r\n"
                + "Call-ID: a\r\nCSeq: 1 REGISTER\r\n";
        assertTrue(governs(register + "\r\n"));
        assertTrue(governs("MESSAGE sip:bob@example.com SIP/2.0\r\nCall-ID: b\r\n\r\n"));
        assertFalse(governs(register + "Authorization: Digest username=\"alice\"\r\n\r\n"));
        assertFalse(governs(register + "authorization : Digest username=\"alice\"\r\n\r\n"));
        assertFalse(governs("SUBSCRIBE sip:b@example.com SIP/2.0\r\nPROXY-AUTHORIZATION: Digest x\r\n\r\n"));
        assertTrue(governs(register + "Authorization-Info: nextnonce=\"x\"\r\n\r\n"), "another header's name");
        assertTrue(governs(register + "\r\nAuthorization: Digest in the body\r\n"), "the body is not the header");
        assertFalse(governs("INVITE sip:bob@example.com SIP/2.0\r\nCall-ID: c\r\n\r\n"), "calls are not budgeted");
        assertFalse(governs("OPTIONS sip:example.com SIP/2.0\r\n\r\n"), "keep-alives and probes are not");
        assertFalse(governs("SIP/2.0 401 Unauthorized\r\nCSeq: 1 REGISTER\r\n\r\n"), "nor responses");
        assertFalse(governs("REG"));
    }

    @Test
    void aBudgetOfNothingIsRefused() {
        assertThrows(IllegalArgumentException.class, () -> new CredentialFreeBudget(0, 10, 0));
        assertThrows(IllegalArgumentException.class, () -> new CredentialFreeBudget(10, 0, 0));
    }
}
