package org.p2psip.core.location;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Map;
import java.util.OptionalLong;

import org.junit.jupiter.api.Test;
import org.p2psip.core.net.HostPort;

class RegisterRequestTest {

    private static RegisterRequest register(OptionalLong expires, ContactSpec... contacts) {
        return new RegisterRequest(AddressOfRecord.parse("sip:alice@example.com"), List.of(contacts), expires,
                "c1", 1, List.of(), new HostPort("192.0.2.1", 5060), "UDP");
    }

    private static ContactSpec contact(OptionalLong expires) {
        return new ContactSpec("sip:alice@192.0.2.1", expires, 1000, Map.of());
    }

    @Test
    void aContactWithoutExpiresMayAddABinding() {
        assertTrue(register(OptionalLong.empty(), contact(OptionalLong.empty())).mayAddBindings());
    }

    @Test
    void aFetchAddsNothing() {
        assertFalse(register(OptionalLong.empty()).mayAddBindings());
    }

    @Test
    void aRemovalByExpiresZeroAddsNothing() {
        assertFalse(register(OptionalLong.of(0), contact(OptionalLong.empty())).mayAddBindings());
        assertFalse(register(OptionalLong.of(3600), contact(OptionalLong.of(0))).mayAddBindings());
        assertFalse(register(OptionalLong.of(0), ContactSpec.wildcard()).mayAddBindings());
    }

    @Test
    void aContactsOwnExpiresOverridesTheHeader() {
        assertTrue(register(OptionalLong.of(0), contact(OptionalLong.of(60))).mayAddBindings());
    }
}
