package org.p2psip.servlet.accounting;

import java.time.Clock;
import java.time.Instant;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

import javax.sip.address.Address;
import javax.sip.header.CallIdHeader;
import javax.sip.header.FromHeader;
import javax.sip.header.ToHeader;
import javax.sip.message.Request;
import javax.sip.message.Response;

import org.p2psip.core.location.BindingChange;
import org.p2psip.core.location.RegisterRequest;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Turns what the node's proxy and registrar do into accounting records and
 * hands them to an {@link AccountingSink}; called on SIP threads, so it
 * returns at once and never throws.
 *
 * <ul>
 *   <li>A call is an initial INVITE (no To tag, RFC 3261 §12.1) the proxy
 *       took up. Its record is made when the final answer goes upstream:
 *       arrival, answer (2xx) or end (anything else, 487 for a CANCELled
 *       call), status, caller, callee, this node. Re-INVITEs belong to a
 *       call already recorded and write nothing.</li>
 *   <li>A 401 or 407 answer is no call: the caller answers the challenge
 *       with a new INVITE in the same call (§22.2, §22.3), and that one's
 *       answer is the call's.</li>
 *   <li>A BYE ends the call when it reaches the node inside a dialog the
 *       cluster record-routed (its Route carries this cluster's token for
 *       its Call-ID), whichever node set the call up. A BYE nobody can
 *       show to be one of the cluster's dialogs writes nothing, so strangers
 *       cannot fill the table with calls that never were.</li>
 *   <li>With registrations on, each binding a REGISTER added, refreshed or
 *       removed is a record.</li>
 * </ul>
 */
public final class AccountingRecorder {

    /** Records nothing. */
    public static final AccountingRecorder OFF = new AccountingRecorder(AccountingSink.NONE, "-", Clock.systemUTC(),
            false, false);

    private static final Logger LOG = LoggerFactory.getLogger(AccountingRecorder.class);

    /**
     * An initial INVITE as it arrived, kept until its final answer.
     *
     * @param callId its Call-ID
     * @param caller its From URI
     * @param callee its To URI
     * @param at     when it reached the node
     */
    public record InviteArrival(String callId, String caller, String callee, Instant at) {
        public InviteArrival {
            Objects.requireNonNull(callId, "callId");
            Objects.requireNonNull(caller, "caller");
            Objects.requireNonNull(callee, "callee");
            Objects.requireNonNull(at, "at");
        }
    }

    private final AccountingSink sink;
    private final String node;
    private final Clock clock;
    private final boolean calls;
    private final boolean registrations;

    private AccountingRecorder(AccountingSink sink, String node, Clock clock, boolean calls, boolean registrations) {
        this.sink = Objects.requireNonNull(sink, "sink");
        this.node = Objects.requireNonNull(node, "node");
        this.clock = Objects.requireNonNull(clock, "clock");
        this.calls = calls;
        this.registrations = registrations;
    }

    /**
     * Records the calls through the node at SIP address {@code node}, and
     * its registration changes too when {@code registrations} is set.
     */
    public static AccountingRecorder of(AccountingSink sink, String node, Clock clock, boolean registrations) {
        return new AccountingRecorder(sink, node, clock, true, registrations);
    }

    /** An initial INVITE the proxy takes up; empty when calls are not recorded or it names no Call-ID. */
    public Optional<InviteArrival> inviteArrived(Request invite) {
        if (!calls) {
            return Optional.empty();
        }
        try {
            if (!(invite.getHeader(CallIdHeader.NAME) instanceof CallIdHeader callId)) {
                return Optional.empty();
            }
            return Optional.of(new InviteArrival(callId.getCallId(),
                    uri(invite.getHeader(FromHeader.NAME) instanceof FromHeader f ? f.getAddress() : null),
                    uri(invite.getHeader(ToHeader.NAME) instanceof ToHeader t ? t.getAddress() : null),
                    clock.instant()));
        } catch (RuntimeException e) {
            LOG.debug("accounting: cannot read an INVITE: {}", e.toString());
            return Optional.empty();
        }
    }

    /** The final answer to {@code arrival}'s INVITE went upstream with {@code status}. */
    public void inviteAnswered(InviteArrival arrival, int status) {
        if (status < 200 || status == Response.UNAUTHORIZED || status == Response.PROXY_AUTHENTICATION_REQUIRED) {
            return;
        }
        try {
            sink.offer(CallRecord.invite(arrival.callId(), arrival.caller(), arrival.callee(), node, arrival.at(),
                    status, clock.instant()));
        } catch (RuntimeException e) {
            LOG.debug("accounting: cannot record an INVITE's answer: {}", e.toString());
        }
    }

    /** A BYE of a dialog this cluster record-routed reached the node. */
    public void byeArrived(Request bye) {
        if (!calls) {
            return;
        }
        try {
            if (bye.getHeader(CallIdHeader.NAME) instanceof CallIdHeader callId) {
                sink.offer(CallRecord.bye(callId.getCallId(), node, clock.instant()));
            }
        } catch (RuntimeException e) {
            LOG.debug("accounting: cannot record a BYE: {}", e.toString());
        }
    }

    /** The bindings {@code register} changed, as the registrar rules decided. */
    public void bindingsChanged(RegisterRequest register, List<BindingChange> changes) {
        if (!registrations || changes.isEmpty()) {
            return;
        }
        try {
            Instant now = clock.instant();
            String aor = register.aor().toString();
            for (BindingChange change : changes) {
                sink.offer(RegistrationRecord.of(now, node, aor, change, register.callId(), register.cseq()));
            }
        } catch (RuntimeException e) {
            LOG.debug("accounting: cannot record a registration change: {}", e.toString());
        }
    }

    private static String uri(Address address) {
        return address == null || address.getURI() == null ? "" : address.getURI().toString();
    }
}
