package org.p2psip.balancer;

import org.p2psip.sip.wire.MalformedSipException;
import org.p2psip.sip.wire.SipMessage;
import org.p2psip.sip.wire.SipParser;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;

import java.util.List;
import java.util.Optional;

import org.junit.jupiter.api.Test;
import org.p2psip.core.dht.KeyPlacement;
import org.p2psip.core.dht.KeyRangeSet;
import org.p2psip.core.location.ServedDomains;
import org.p2psip.core.net.HostPort;

class LbOwnerPolicyTest {

    private static final long NOW = 1_000_000_000_000L;
    private static final long SECOND = 1_000_000_000L;

    private final NodeSet nodes = new NodeSet(List.of(HostPort.parse("127.0.0.1:5061"),
            HostPort.parse("127.0.0.1:5062"), HostPort.parse("127.0.0.1:5063")));
    private final KeyOwners owners = new KeyOwners(3);
    private final NodeLoad load = new NodeLoad(3);
    private final NodeSelector owner = new NodeSelector(BalancingPolicy.OWNER, nodes, owners, load,
            new BalancerCounters());
    private final NodeSelector callId = new NodeSelector(BalancingPolicy.CALL_ID, nodes);

    private static SipMessage parse(String text) throws MalformedSipException {
        return SipParser.parse(LbText.udp(text));
    }

    /** A bodiless {@code method} with {@code invite}'s branch, Call-ID and CSeq number: a CANCEL or an ACK of it. */
    private static String sameTransaction(String invite, String method) {
        return invite.replace("INVITE sip:", method + " sip:").replace("1 INVITE", "1 " + method)
                .replace("Content-Length: 5\nv=0\n", "Content-Length: 0\n");
    }

    /** Node {@code index} claims just the point of {@code aorKey}; the others claim nothing. */
    private void onlyClaims(int index, String aorKey) {
        long p = KeyPlacement.point(aorKey);
        for (int i = 0; i < 3; i++) {
            owners.claim(i, i == index ? Optional.of(KeyRangeSet.arc(p - 1, p)) : Optional.empty());
        }
    }

    @Test
    void aRegisterGoesToTheNodeThatClaimsItsToAor() throws Exception {
        for (int claimant = 0; claimant < 3; claimant++) {
            onlyClaims(claimant, "alice@example.com");
            for (String to : List.of("alice@example.com", "%61lice@EXAMPLE.com;transport=tcp")) {
                SipMessage m = parse(LbText.register(to, "reg-" + claimant + to.length()));
                assertEquals(nodes.all().get(claimant), owner.choose(m, NOW).orElseThrow(), to);
            }
        }
    }

    @Test
    void anAorAtAnAliasIsPlacedUnderItsServedDomainAsTheRegistrarFilesIt() throws Exception {
        owners.serve(new ServedDomains(List.of("example.com"), List.of(HostPort.parse("127.0.0.1:5060"))));
        onlyClaims(1, "alice@example.com");
        for (String to : List.of("alice@127.0.0.1:5060", "alice@127.0.0.1", "alice@example.com:5070")) {
            SipMessage m = parse(LbText.register(to, "alias-" + to));
            assertEquals(nodes.all().get(1), owner.choose(m, NOW).orElseThrow(), to);
        }
        onlyClaims(2, "alice@elsewhere.org");
        SipMessage foreign = parse(LbText.register("alice@elsewhere.org", "foreign"));
        assertEquals(nodes.all().get(2), owner.choose(foreign, NOW).orElseThrow(), "a domain not served stays as it is");
    }

    @Test
    void anInviteAndItsCancelGoToTheOwnerOfTheRequestUri() throws Exception {
        onlyClaims(2, "bob@example.com");
        String invite = LbText.invite("call-1", "z9hG4bK1");
        assertEquals(nodes.all().get(2), owner.choose(parse(invite), NOW).orElseThrow());
        assertEquals(nodes.all().get(2), owner.choose(parse(sameTransaction(invite, "CANCEL")), NOW).orElseThrow());
    }

    @Test
    void unclaimedKeysGoByCallIdAsThatPolicyWould() throws Exception {
        onlyClaims(0, "someone-else@example.com");
        for (int i = 0; i < 30; i++) {
            SipMessage m = parse(LbText.register("u" + i + "@example.com", "c" + i));
            assertEquals(callId.choose(m, NOW), owner.choose(m, NOW), "u" + i);
        }
    }

    @Test
    void aClaimantThatIsDownIsPassedOver() throws Exception {
        onlyClaims(1, "alice@example.com");
        nodes.markDown(1);
        SipMessage m = parse(LbText.register("alice@example.com", "r1"));
        assertNotEquals(nodes.all().get(1), owner.choose(m, NOW).orElseThrow());
        assertEquals(callId.choose(m, NOW), owner.choose(m, NOW));
    }

    @Test
    void anOwnerHoldingOffAfterA503LosesNewRequestsToTheOthers() throws Exception {
        onlyClaims(0, "alice@example.com");
        load.serviceUnavailable(0, 5, NOW);
        SipMessage m = parse(LbText.register("alice@example.com", "r2"));
        assertNotEquals(nodes.all().get(0), owner.choose(m, NOW + 1).orElseThrow());
    }

    @Test
    void aRetransmissionGoesWhereItsTransactionWentAfterTheClaimMoves() throws Exception {
        onlyClaims(0, "alice@example.com");
        SipMessage register = parse(LbText.register("alice@example.com", "moving"));
        assertEquals(nodes.all().get(0), owner.choose(register, NOW).orElseThrow());
        onlyClaims(2, "alice@example.com");
        assertEquals(nodes.all().get(0), owner.choose(parse(LbText.register("alice@example.com", "moving")),
                NOW + SECOND).orElseThrow(), "the retransmission meets the transaction it belongs to");
        assertEquals(nodes.all().get(2), owner.choose(parse(LbText.register("alice@example.com", "refresh")),
                NOW + SECOND).orElseThrow(), "a new REGISTER goes to the new claimant");
    }

    @Test
    void aCancelAndANon2xxAckFollowTheirInviteAfterTheClaimMoves() throws Exception {
        onlyClaims(2, "bob@example.com");
        String invite = LbText.invite("call-2", "z9hG4bK2");
        assertEquals(nodes.all().get(2), owner.choose(parse(invite), NOW).orElseThrow());
        onlyClaims(1, "bob@example.com");
        assertEquals(nodes.all().get(2), owner.choose(parse(sameTransaction(invite, "CANCEL")), NOW + SECOND)
                .orElseThrow());
        String ack = sameTransaction(invite, "ACK").replace("To: <sip:bob@example.com>",
                "To: <sip:bob@example.com>;tag=b486");
        assertEquals(nodes.all().get(2), owner.choose(parse(ack), NOW + 2 * SECOND).orElseThrow());
        assertEquals(nodes.all().get(1), owner.choose(parse(LbText.invite("call-3", "z9hG4bK3")), NOW + SECOND)
                .orElseThrow());
    }

    @Test
    void aRetransmissionWhoseNodeWentDownStaysWithTheNodeThatTookIt() throws Exception {
        onlyClaims(0, "alice@example.com");
        String text = LbText.register("alice@example.com", "orphan");
        assertEquals(nodes.all().get(0), owner.choose(parse(text), NOW).orElseThrow());
        nodes.markDown(0);
        onlyClaims(1, "alice@example.com");
        assertEquals(nodes.all().get(1), owner.choose(parse(text), NOW + SECOND).orElseThrow());
        nodes.markUp(0);
        assertEquals(nodes.all().get(1), owner.choose(parse(text), NOW + 2 * SECOND).orElseThrow(),
                "the node that took the retransmission holds the transaction now");
    }

    @Test
    void aTransactionPastTimerFIsPlacedAfresh() throws Exception {
        onlyClaims(0, "alice@example.com");
        String text = LbText.register("alice@example.com", "late");
        assertEquals(nodes.all().get(0), owner.choose(parse(text), NOW).orElseThrow());
        onlyClaims(2, "alice@example.com");
        assertEquals(nodes.all().get(2), owner.choose(parse(text), NOW + 33 * SECOND).orElseThrow());
    }
}
