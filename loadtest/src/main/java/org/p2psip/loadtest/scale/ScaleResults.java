package org.p2psip.loadtest.scale;

import java.time.Instant;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.TreeSet;

/**
 * Everything one scale benchmark measured, with the conditions it ran in.
 *
 * @param startedAt  when the run began
 * @param seconds    how long it took
 * @param cores      processors the JVM saw
 * @param javaVersion the JVM's version
 * @param settings   what was asked
 * @param cells      one per backend, node count and scenario, in run order
 */
public record ScaleResults(Instant startedAt, double seconds, int cores, String javaVersion, ScaleSettings settings,
                           List<ScaleCell> cells) {

    public ScaleResults {
        Objects.requireNonNull(startedAt, "startedAt");
        Objects.requireNonNull(settings, "settings");
        cells = List.copyOf(cells);
    }

    /** The cell for one row ({@link ScaleCell#row}), node count and scenario, if it is there. */
    public Optional<ScaleCell> cell(String row, int nodes, String scenario) {
        return cells.stream().filter(c -> c.row().equals(row) && c.nodes() == nodes && c.scenario().equals(scenario))
                .findFirst();
    }

    /** Rows (backend, and whether authenticated) in first-seen order. */
    public List<String> rows() {
        return cells.stream().map(ScaleCell::row).distinct().toList();
    }

    /** Scenarios in first-seen order. */
    public List<String> scenarios() {
        return cells.stream().map(ScaleCell::scenario).distinct().toList();
    }

    /** Node counts, ascending. */
    public List<Integer> nodeCounts() {
        return List.copyOf(new TreeSet<>(cells.stream().map(ScaleCell::nodes).toList()));
    }
}
