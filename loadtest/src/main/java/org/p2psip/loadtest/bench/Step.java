package org.p2psip.loadtest.bench;

import java.util.List;

/** What a {@link Flow} does after the final response to its current transaction. */
public sealed interface Step {

    /**
     * Send {@code once} (requests outside any client transaction, such as
     * the ACK for a 2xx, RFC 3261 §13.2.2.4) and then start the client
     * transaction {@code next}.
     */
    record Continue(List<Outgoing> once, Outgoing next) implements Step {
    }

    /** The flow succeeded. */
    record Done() implements Step {
    }

    /** The flow failed; {@code reason} is the status code or what went wrong, as in the report. */
    record Failed(String reason) implements Step {
    }

    Step DONE = new Done();
}
