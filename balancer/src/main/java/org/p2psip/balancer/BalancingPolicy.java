package org.p2psip.balancer;

import java.util.Arrays;
import java.util.Locale;
import java.util.stream.Collectors;

/**
 * How the balancer picks a node for a request. Whatever the policy, ACK,
 * CANCEL, retransmissions and in-dialog requests are placed by a hash, so
 * they meet the node that holds their server transaction (RFC 3261
 * §9.2, §17.2.3).
 */
public enum BalancingPolicy {

    /**
     * Each new transaction to a node picked by hashing its top Via branch:
     * transactions spread evenly over the live nodes with no affinity to
     * their call or AOR (a REGISTER's challenge and its answer usually meet
     * different nodes), while a transaction's retransmissions, CANCEL and
     * non-2xx ACK meet one node.
     */
    ROUND_ROBIN("round-robin"),

    /**
     * Each request to the node that owns its AOR's key in the DHT, as the
     * nodes tell the balancer ({@link KeyOwners}): REGISTER by its To URI,
     * other requests by their Request-URI, the keys the registrar and the
     * proxy read. The registrar's read and conditional write, and the
     * credentials and nonce counts that share the AOR's key group, are then
     * local to the node, so each added node adds capacity rather than
     * network hops. CANCEL and a non-2xx ACK carry the INVITE's
     * Request-URI and meet its node. A request whose key no live node
     * claims (no view yet, ownership moving, a backend that cannot tell)
     * goes by Call-ID instead. The default.
     */
    OWNER("owner"),

    /**
     * Consistent hash of the Call-ID over the live nodes: a transaction,
     * its retransmissions, its CANCEL and ACK and the whole dialog meet
     * one node. Load spreads evenly however popular one AOR is, and nothing
     * needs the DHT's view; but a REGISTER's key is on another node
     * (N-1)/N of the time.
     */
    CALL_ID("call-id"),

    /**
     * Consistent hash of the AOR key the registrar uses ({@code
     * AddressOfRecord.key()}): REGISTER by its To URI, other requests by
     * their Request-URI. All updates of one AOR meet one node, so
     * concurrent REGISTERs for it do not race through the DHT.
     */
    AOR("aor");

    private final String flag;

    BalancingPolicy(String flag) {
        this.flag = flag;
    }

    /** The name used on the command line. */
    public String flag() {
        return flag;
    }

    /** @throws IllegalArgumentException naming the accepted values */
    public static BalancingPolicy parse(String text) {
        String t = text == null ? "" : text.trim().toLowerCase(Locale.ROOT);
        for (BalancingPolicy p : values()) {
            if (p.flag.equals(t)) {
                return p;
            }
        }
        throw new IllegalArgumentException("unknown policy '" + text + "' (one of "
                + Arrays.stream(values()).map(BalancingPolicy::flag).collect(Collectors.joining(", ")) + ")");
    }

    @Override
    public String toString() {
        return flag;
    }
}
