package org.p2psip.loadtest.scale;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.function.Function;

import org.knowm.xchart.BitmapEncoder;
import org.knowm.xchart.CategoryChart;
import org.knowm.xchart.CategoryChartBuilder;
import org.knowm.xchart.XYChart;
import org.knowm.xchart.XYChartBuilder;
import org.knowm.xchart.style.Styler;
import org.knowm.xchart.style.markers.SeriesMarkers;

/**
 * The scale benchmark's PNG charts, drawn with XChart: per scenario, the
 * max rate against node count with one line per backend (the paper's
 * Figures 5–10 as one picture), the latency percentiles at each cell's
 * max rate, and what that rate cost in CPU per 1,000 flows, by part.
 */
public final class ScaleCharts {

    private static final int WIDTH = 640;
    private static final int HEIGHT = 400;

    private ScaleCharts() {
    }

    /** Writes {@code rate-}, {@code latency-} and {@code cost-SCENARIO.png} per scenario; returns the files. */
    public static List<Path> write(ScaleResults r, Path dir) throws IOException {
        // Drawing needs no display; without this a JVM on a desktop-less machine may try to find one.
        System.setProperty("java.awt.headless", "true");
        List<Path> files = new ArrayList<>();
        for (String scenario : r.scenarios()) {
            Path rate = dir.resolve("rate-" + scenario + ".png");
            BitmapEncoder.saveBitmap(rateChart(r, scenario), rate.toString(), BitmapEncoder.BitmapFormat.PNG);
            files.add(rate);
            CategoryChart latency = latencyChart(r, scenario);
            if (latency != null) {
                Path file = dir.resolve("latency-" + scenario + ".png");
                BitmapEncoder.saveBitmap(latency, file.toString(), BitmapEncoder.BitmapFormat.PNG);
                files.add(file);
            }
            CategoryChart cost = costChart(r, scenario);
            if (cost != null) {
                Path file = dir.resolve("cost-" + scenario + ".png");
                BitmapEncoder.saveBitmap(cost, file.toString(), BitmapEncoder.BitmapFormat.PNG);
                files.add(file);
            }
        }
        return files;
    }

    static XYChart rateChart(ScaleResults r, String scenario) {
        XYChart chart = new XYChartBuilder().width(WIDTH).height(HEIGHT)
                .title(scenario + ": max sustainable rate by node count")
                .xAxisTitle("nodes behind the balancer").yAxisTitle("per second").build();
        chart.getStyler().setLegendPosition(Styler.LegendPosition.InsideNE);
        chart.getStyler().setYAxisMin(0.0);
        chart.getStyler().setXAxisDecimalPattern("0");
        chart.getStyler().setChartBackgroundColor(java.awt.Color.WHITE);
        boolean any = false;
        for (String dht : r.rows()) {
            List<Double> xs = new ArrayList<>();
            List<Double> ys = new ArrayList<>();
            for (int n : r.nodeCounts()) {
                r.cell(dht, n, scenario).filter(c -> c.status() == ScaleCell.Status.OK).ifPresent(c -> {
                    xs.add((double) c.nodes());
                    ys.add(c.maxRate());
                });
            }
            if (!xs.isEmpty()) {
                chart.addSeries(dht, xs, ys).setMarker(SeriesMarkers.CIRCLE);
                any = true;
            }
        }
        if (!any) {
            // XChart refuses to draw a chart without series; an empty one says "nothing measured" plainly.
            chart.addSeries("nothing measured", List.of(1.0), List.of(0.0));
        }
        return chart;
    }

    /** p50, p90 and p99 bars per measured backend/node-count; null when no cell was measured. */
    static CategoryChart latencyChart(ScaleResults r, String scenario) {
        return bars(r, scenario, scenario + ": latency at the max rate", "ms", List.of("p50", "p90", "p99"),
                c -> Optional.of(List.of(c.p50Millis(), c.p90Millis(), c.p99Millis())));
    }

    /** Nodes, balancer and generator CPU per 1,000 flows at each measured cell's max rate; null when none has it. */
    static CategoryChart costChart(ScaleResults r, String scenario) {
        return bars(r, scenario, scenario + ": CPU per 1,000 flows at the max rate", "CPU ms",
                List.of("nodes", "balancer", "generator"),
                c -> c.cpu().map(p -> List.of(p.nodesMillis(), p.balancerMillis(), p.generatorMillis())));
    }

    /**
     * A group of bars per measured backend/node-count, one bar per name in
     * {@code series}, heights from {@code values}; null when no measured
     * cell has values.
     */
    private static CategoryChart bars(ScaleResults r, String scenario, String title, String yAxis,
                                      List<String> series, Function<ScaleCell, Optional<List<Double>>> values) {
        List<String> labels = new ArrayList<>();
        List<List<Double>> heights = new ArrayList<>();
        series.forEach(s -> heights.add(new ArrayList<>()));
        for (String dht : r.rows()) {
            for (int n : r.nodeCounts()) {
                r.cell(dht, n, scenario).filter(ScaleCell::measured).flatMap(values).ifPresent(v -> {
                    labels.add(dht + " x" + n);
                    for (int i = 0; i < series.size(); i++) {
                        heights.get(i).add(v.get(i));
                    }
                });
            }
        }
        if (labels.isEmpty()) {
            return null;
        }
        CategoryChart chart = new CategoryChartBuilder().width(WIDTH).height(HEIGHT).title(title)
                .xAxisTitle("backend x nodes").yAxisTitle(yAxis).build();
        chart.getStyler().setLegendPosition(Styler.LegendPosition.InsideNW);
        chart.getStyler().setChartBackgroundColor(java.awt.Color.WHITE);
        chart.getStyler().setYAxisMin(0.0);
        for (int i = 0; i < series.size(); i++) {
            chart.addSeries(series.get(i), labels, heights.get(i));
        }
        return chart;
    }
}
