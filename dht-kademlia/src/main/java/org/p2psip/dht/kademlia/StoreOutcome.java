package org.p2psip.dht.kademlia;

/**
 * A holder's answer to a STORE or a COMMIT, one byte on the wire. An answer
 * of any other shape counts as a refusal.
 */
enum StoreOutcome {

    /** It holds, or is preparing, another write of the key. */
    REFUSED_NEWER(0),
    /** Stored, prepared, committed or dropped as asked. */
    TAKEN(1),
    /** It knows a live node closer to the key than the coordinator that sent the write. */
    REFUSED_NOT_COORDINATOR(2);

    private final byte code;

    StoreOutcome(int code) {
        this.code = (byte) code;
    }

    byte[] answer() {
        return new byte[] {code};
    }

    static StoreOutcome of(byte[] answer) {
        if (answer.length == 1) {
            for (StoreOutcome o : values()) {
                if (o.code == answer[0]) {
                    return o;
                }
            }
        }
        return REFUSED_NEWER;
    }
}
