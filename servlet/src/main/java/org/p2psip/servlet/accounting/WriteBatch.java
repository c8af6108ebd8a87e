package org.p2psip.servlet.accounting;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The records of one flush as they go to the database in one transaction.
 *
 * <ul>
 *   <li>Partials of one call in the same batch are merged first
 *       ({@link CallRecord#mergedWith}, in the order they came): one
 *       {@code MERGE} per call and batch, and a statement never has to
 *       touch a row another statement of its batch touched.</li>
 *   <li>Calls go in Call-ID order. Nodes that write partials of the same
 *       calls at the same moment then lock their rows in the same order, so
 *       their transactions wait for each other instead of deadlocking.</li>
 *   <li>Registration changes keep their order.</li>
 * </ul>
 *
 * @param calls         one merged record per call, by Call-ID
 * @param registrations registration changes in the order they were made
 */
public record WriteBatch(List<CallRecord> calls, List<RegistrationRecord> registrations) {

    public WriteBatch {
        calls = List.copyOf(calls);
        registrations = List.copyOf(registrations);
    }

    /** The batch that writes {@code records}, oldest first. */
    public static WriteBatch of(List<? extends AccountingRecord> records) {
        Map<String, CallRecord> calls = new LinkedHashMap<>();
        List<RegistrationRecord> registrations = new ArrayList<>();
        for (AccountingRecord r : records) {
            if (r instanceof CallRecord c) {
                calls.merge(c.callId(), c, CallRecord::mergedWith);
            } else if (r instanceof RegistrationRecord g) {
                registrations.add(g);
            }
        }
        List<CallRecord> ordered = new ArrayList<>(calls.values());
        ordered.sort(Comparator.comparing(CallRecord::callId));
        return new WriteBatch(ordered, registrations);
    }

    /** Statements the batch runs. */
    public int size() {
        return calls.size() + registrations.size();
    }
}
