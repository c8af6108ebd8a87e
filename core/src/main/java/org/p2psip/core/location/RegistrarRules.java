package org.p2psip.core.location;

import java.time.Instant;
import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.OptionalLong;

import org.p2psip.core.location.RegisterOutcome.Accepted;
import org.p2psip.core.location.RegisterOutcome.Rejected;

/**
 * The registrar's binding update, RFC 3261 §10.3 steps 6 to 8, as a pure
 * function of the request, the stored bindings, the policy and the time.
 *
 * <p>The update is all or nothing: any contact that fails its check rejects
 * the whole request and the stored set stays as it was (§10.3 step 7, "the
 * binding updates MUST be committed ... only if all binding updates and
 * additions succeed").
 */
public final class RegistrarRules {

    private static final long ONE_HOUR = 3600;

    private RegistrarRules() {
    }

    /** Applies {@code request} to {@code stored} at {@code now}. */
    public static RegisterOutcome apply(RegisterRequest request, BindingSet stored,
                                        RegistrarPolicy policy, Instant now) {
        BindingSet current = stored.activeAt(now);
        boolean dropped = current.size() != stored.size();
        if (request.isFetch()) {
            return new Accepted(current, dropped);
        }
        List<ContactSpec> contacts = request.contacts();
        boolean anyWildcard = contacts.stream().anyMatch(ContactSpec::isWildcard);
        if (anyWildcard) {
            return removeAll(request, current, dropped);
        }
        for (ContactSpec c : contacts) {
            try {
                SipUri.parse(c.uri());
            } catch (IllegalArgumentException e) {
                return Rejected.of(400, "Bad Contact URI: " + e.getMessage());
            }
        }
        List<Binding> next = new ArrayList<>(current.bindings());
        // A contact repeated within one request updates what the request itself
        // wrote; only bindings stored before it are subject to the CSeq check.
        List<Binding> writtenHere = new ArrayList<>();
        // What the request did to each binding, by the binding it wrote last; a contact it names
        // twice keeps one entry (added then removed again: none).
        List<BindingChange> changes = new ArrayList<>();
        Map<Binding, Integer> changeOf = new IdentityHashMap<>();
        boolean changed = dropped;
        for (ContactSpec c : contacts) {
            long requested = c.expires().orElse(request.expires().orElse(policy.defaultExpires()));
            // §10.3 step 7: 423 "if and only if the requested expiration interval is greater
            // than zero AND smaller than one hour AND less than a registrar-configured minimum".
            if (requested > 0 && requested < ONE_HOUR && requested < policy.minExpires()) {
                return new Rejected(423, "Interval Too Brief", OptionalLong.of(policy.minExpires()));
            }
            long granted = Math.min(requested, policy.maxExpires());
            int index = indexOf(next, c);
            if (index >= 0) {
                Binding existing = next.get(index);
                boolean ownWrite = writtenHere.stream().anyMatch(w -> w == existing);
                boolean sameCall = !ownWrite && existing.callId().equals(request.callId());
                if (sameCall && request.cseq() == existing.cseq() && granted > 0) {
                    // The request that wrote this binding, again: a client
                    // numbers every new REGISTER of a Call-ID anew (§10.2), so
                    // this is a retransmission that reached another node than
                    // the one holding its transaction (§17.2.3 would have
                    // absorbed it there). Answered as that transaction would.
                    continue;
                }
                if (sameCall && request.cseq() <= existing.cseq()) {
                    return Rejected.of(500, "Out of order CSeq for contact " + c.uri());
                }
                Integer earlier = changeOf.remove(existing);
                BindingChange.Kind kind = earlier == null ? BindingChange.Kind.REFRESHED : changes.get(earlier).kind();
                if (granted == 0) {
                    next.remove(index);
                    record(changes, earlier, kind == BindingChange.Kind.ADDED ? null
                            : new BindingChange(existing.contact(), BindingChange.Kind.REMOVED, 0));
                } else {
                    // A refresh moves the binding to the end: the set is kept in order of last write.
                    Binding fresh = bind(request, c, granted, now);
                    next.remove(index);
                    next.add(fresh);
                    writtenHere.add(fresh);
                    changeOf.put(fresh, record(changes, earlier, new BindingChange(c.uri(), kind, granted)));
                }
                changed = true;
            } else if (granted > 0) {
                Binding fresh = bind(request, c, granted, now);
                next.add(fresh);
                writtenHere.add(fresh);
                changeOf.put(fresh, record(changes, null, new BindingChange(c.uri(), BindingChange.Kind.ADDED, granted)));
                changed = true;
            }
        }
        if (next.size() > policy.maxContacts()) {
            return Rejected.of(503, "Too many registered contacts (limit " + policy.maxContacts() + ")");
        }
        return new Accepted(new BindingSet(next), changed,
                changes.stream().filter(Objects::nonNull).toList());
    }

    /**
     * {@code Contact: *} (§10.3 step 6): valid only alone and with
     * {@code Expires: 0}; removes every binding whose Call-ID differs or
     * whose CSeq is lower than the request's.
     */
    private static RegisterOutcome removeAll(RegisterRequest request, BindingSet current, boolean dropped) {
        if (request.contacts().size() != 1) {
            return Rejected.of(400, "Wildcard Contact must be the only Contact");
        }
        if (request.expires().isEmpty() || request.expires().getAsLong() != 0) {
            return Rejected.of(400, "Wildcard Contact requires Expires: 0");
        }
        for (Binding b : current.bindings()) {
            if (b.callId().equals(request.callId()) && request.cseq() <= b.cseq()) {
                return Rejected.of(500, "Out of order CSeq for wildcard removal");
            }
        }
        List<BindingChange> removed = current.bindings().stream()
                .map(b -> new BindingChange(b.contact(), BindingChange.Kind.REMOVED, 0)).toList();
        return new Accepted(BindingSet.EMPTY, dropped || !current.isEmpty(), removed);
    }

    /** Puts {@code change} in the place of the earlier change at {@code earlier}, or last; null cancels it. */
    private static int record(List<BindingChange> changes, Integer earlier, BindingChange change) {
        if (earlier != null) {
            changes.set(earlier, change);
            return earlier;
        }
        changes.add(change);
        return changes.size() - 1;
    }

    private static int indexOf(List<Binding> bindings, ContactSpec c) {
        for (int i = 0; i < bindings.size(); i++) {
            if (c.sameBindingAs(bindings.get(i))) {
                return i;
            }
        }
        return -1;
    }

    private static Binding bind(RegisterRequest r, ContactSpec c, long seconds, Instant now) {
        return new Binding(c.uri(), c.params(), now.plusSeconds(seconds), c.q(), r.callId(), r.cseq(),
                c.instanceId(), c.regId(), r.path(), r.source(), r.transport());
    }
}
