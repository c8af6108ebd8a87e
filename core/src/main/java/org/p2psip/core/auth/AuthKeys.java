package org.p2psip.core.auth;

import org.p2psip.core.location.AddressOfRecord;

/**
 * DHT keys of the trust data, beside the bindings in the same DHT.
 *
 * <p>A binding's key is an AOR key: whatever follows its last {@code @}
 * (or all of it, without one) is a host and optional port, which never
 * holds a {@code #}. Every key made here has a {@code #} after its last
 * {@code @}, so no AOR, however its user part is escaped, can read or
 * overwrite a credential, a nonce count or the user index.
 *
 * <p>An AOR's trust data shares the AOR's placement group (the text before
 * the first {@code #}, {@link org.p2psip.core.dht.KeyPlacement}), so it lives
 * on the node that owns the AOR's bindings.
 */
public final class AuthKeys {

    /** The user index is spread over this many keys, so that no one value grows with every user. */
    public static final int INDEX_SHARDS = 64;

    private AuthKeys() {
    }

    /** Where {@code aor}'s credentials live. */
    public static String credentials(AddressOfRecord aor) {
        return aor.key() + "#cred";
    }

    /** Where the nonce counts {@code aor} used with {@code nonce} are kept. */
    public static String nonceCounts(AddressOfRecord aor, String nonce) {
        return aor.key() + "#nc#" + nonce;
    }

    /** The index shard that lists {@code aor} if it has credentials. */
    public static String indexShard(AddressOfRecord aor) {
        return indexShard(Math.floorMod(aor.key().hashCode(), INDEX_SHARDS));
    }

    public static String indexShard(int shard) {
        // The shard number goes before the '#', in the placement group, so the shards spread over the nodes.
        return "users" + shard + "#index";
    }
}
