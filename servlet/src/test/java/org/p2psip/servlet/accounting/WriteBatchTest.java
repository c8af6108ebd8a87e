package org.p2psip.servlet.accounting;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.time.Instant;
import java.util.List;
import java.util.Optional;

import org.junit.jupiter.api.Test;
import org.p2psip.core.location.BindingChange;

/** A flush's records as they go to the database: one merge per call, in a fixed order. */
class WriteBatchTest {

    static final Instant T0 = Instant.parse("2026-11-27T10:00:00Z");

    static RegistrationRecord registration(String contact) {
        return RegistrationRecord.of(T0, "n1", "sip:alice@atlanta.com",
                new BindingChange(contact, BindingChange.Kind.ADDED, 3600), "reg-1", 1);
    }

    @Test
    void partialsOfOneCallInOneBatchBecomeOneRecord() {
        CallRecord invite = CallRecord.invite("c1", "sip:a@x", "sip:b@x", "n1", T0, 200, T0.plusSeconds(1));
        CallRecord bye = CallRecord.bye("c1", "n2", T0.plusSeconds(11));
        WriteBatch batch = WriteBatch.of(List.of(invite, bye));
        assertEquals(List.of(invite.mergedWith(bye)), batch.calls());
        assertEquals(Optional.of(T0.plusSeconds(11)), batch.calls().get(0).endedAt());
        assertEquals(1, batch.size());
    }

    @Test
    void callsGoInCallIdOrderSoConcurrentWritersLockRowsAlike() {
        List<AccountingRecord> records = List.of(CallRecord.bye("c3", "n", T0), CallRecord.bye("c1", "n", T0),
                CallRecord.bye("c2", "n", T0), CallRecord.bye("c1", "m", T0.plusMillis(5)));
        assertEquals(List.of("c1", "c2", "c3"), WriteBatch.of(records).calls().stream().map(CallRecord::callId).toList());
    }

    @Test
    void registrationChangesKeepTheirOrderBesideTheCalls() {
        RegistrationRecord b = registration("sip:alice@10.0.0.9");
        RegistrationRecord a = registration("sip:alice@10.0.0.1");
        WriteBatch batch = WriteBatch.of(List.of(b, CallRecord.bye("c1", "n", T0), a));
        assertEquals(List.of(b, a), batch.registrations());
        assertEquals(3, batch.size());
    }
}
