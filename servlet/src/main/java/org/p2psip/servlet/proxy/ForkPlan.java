package org.p2psip.servlet.proxy;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Function;

import javax.sip.address.URI;

import org.p2psip.core.location.Binding;

/**
 * Which bindings a request is forked to, and in what order (RFC 3261
 * §16.6): groups of equal q, highest first, every target of a group at
 * once. Bindings of one UA instance that registered several flows (the
 * same {@code +sip.instance}, different {@code reg-id}) are one target:
 * the first is tried and the others stand by for a 430 (RFC 5626 §7: no
 * more than one flow of an instance in the target set at a time), so a
 * phone with two flows rings once.
 */
final class ForkPlan {

    private ForkPlan() {
    }

    /**
     * @param bindings the AOR's bindings, highest q first
     * @param parse    the contact as a URI; empty for one that cannot be used, which is skipped
     */
    static List<List<Target>> groups(List<Binding> bindings, Function<String, Optional<URI>> parse) {
        List<List<Target>> groups = new ArrayList<>();
        List<Binding> current = new ArrayList<>();
        int q = Integer.MIN_VALUE;
        for (Binding b : bindings) {
            if (b.effectiveQ() != q && !current.isEmpty()) {
                groups.add(targets(current, parse));
                current = new ArrayList<>();
            }
            q = b.effectiveQ();
            current.add(b);
        }
        if (!current.isEmpty()) {
            groups.add(targets(current, parse));
        }
        groups.removeIf(List::isEmpty);
        return groups;
    }

    private static List<Target> targets(List<Binding> group, Function<String, Optional<URI>> parse) {
        Map<Object, List<Target>> byInstance = new LinkedHashMap<>();
        for (Binding b : group) {
            Optional<URI> uri = parse.apply(b.contact());
            if (uri.isEmpty()) {
                continue;
            }
            // Only outbound registrations (instance and reg-id) are flows of one instance; any other
            // binding is a target of its own.
            Object key = b.instanceId().isPresent() && b.regId().isPresent() ? b.instanceId().get() : new Object();
            byInstance.computeIfAbsent(key, k -> new ArrayList<>()).add(new Target(uri.get(), b.path()));
        }
        List<Target> targets = new ArrayList<>(byInstance.size());
        for (List<Target> flows : byInstance.values()) {
            Target first = flows.get(0);
            targets.add(new Target(first.uri(), first.path(), flows.subList(1, flows.size())));
        }
        return targets;
    }
}
