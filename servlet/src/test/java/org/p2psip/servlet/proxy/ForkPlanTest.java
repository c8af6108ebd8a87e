package org.p2psip.servlet.proxy;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;

import javax.sip.SipFactory;
import javax.sip.address.AddressFactory;
import javax.sip.address.URI;

import org.junit.jupiter.api.Test;
import org.p2psip.core.location.Binding;
import org.p2psip.core.net.HostPort;

class ForkPlanTest {

    private static final AddressFactory ADDRESSES;

    static {
        try {
            ADDRESSES = SipFactory.getInstance().createAddressFactory();
        } catch (javax.sip.PeerUnavailableException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    private static Optional<URI> parse(String s) {
        try {
            return Optional.of(ADDRESSES.createURI(s));
        } catch (java.text.ParseException e) {
            return Optional.empty();
        }
    }

    private static Binding binding(String contact, int q, String instance, int regId) {
        return new Binding(contact, Map.of(), Instant.EPOCH.plusSeconds(3600), q, "c", 1,
                Optional.ofNullable(instance), regId > 0 ? OptionalInt.of(regId) : OptionalInt.empty(),
                List.of("<sip:flow" + contact.hashCode() + "@192.0.2.1;lr;ob>"), new HostPort("127.0.0.1", 5060), "TCP");
    }

    private static List<List<String>> uris(List<List<Target>> groups) {
        return groups.stream().map(g -> g.stream().map(t -> t.uri().toString()).toList()).toList();
    }

    @Test
    void equalQFormsOneParallelGroupHighestFirst() {
        List<List<Target>> groups = ForkPlan.groups(List.of(
                binding("sip:a@192.0.2.1", 900, null, 0), binding("sip:b@192.0.2.2", 900, null, 0),
                binding("sip:c@192.0.2.3", 500, null, 0)), ForkPlanTest::parse);

        assertEquals(List.of(List.of("sip:a@192.0.2.1", "sip:b@192.0.2.2"), List.of("sip:c@192.0.2.3")), uris(groups));
    }

    @Test
    void anInstancesSecondFlowStandsByBehindItsFirstInsteadOfRingingTwice() {
        List<List<Target>> groups = ForkPlan.groups(List.of(
                binding("sip:p@192.0.2.1;transport=tcp", 1000, "<urn:uuid:1>", 1),
                binding("sip:q@192.0.2.9", 1000, null, 0),
                binding("sip:p@192.0.2.1;transport=tcp;x=2", 1000, "<urn:uuid:1>", 2)), ForkPlanTest::parse);

        assertEquals(List.of(List.of("sip:p@192.0.2.1;transport=tcp", "sip:q@192.0.2.9")), uris(groups));
        Target first = groups.get(0).get(0);
        Target next = first.nextFlow();
        assertEquals("sip:p@192.0.2.1;transport=tcp;x=2", next.uri().toString());
        assertEquals(binding("sip:p@192.0.2.1;transport=tcp;x=2", 1000, "<urn:uuid:1>", 2).path(), next.path());
        assertNull(next.nextFlow(), "two flows: after the second, nothing");
        assertNull(groups.get(0).get(1).nextFlow());
    }

    @Test
    void anInstanceWithoutRegIdIsNotAFlowAndEachBindingIsItsOwnTarget() {
        List<List<Target>> groups = ForkPlan.groups(List.of(
                binding("sip:r@192.0.2.1", 1000, "<urn:uuid:2>", 0),
                binding("sip:r@192.0.2.2", 1000, "<urn:uuid:2>", 0)), ForkPlanTest::parse);

        assertEquals(List.of(List.of("sip:r@192.0.2.1", "sip:r@192.0.2.2")), uris(groups));
    }

    @Test
    void anUnusableContactIsSkipped() {
        List<List<Target>> groups = ForkPlan.groups(List.of(binding("sip:ok@192.0.2.1", 1000, null, 0),
                binding("sip:bad@192.0.2.2", 500, null, 0)), s -> s.contains("bad") ? Optional.empty() : parse(s));

        assertEquals(List.of(List.of("sip:ok@192.0.2.1")), uris(groups));
    }
}
