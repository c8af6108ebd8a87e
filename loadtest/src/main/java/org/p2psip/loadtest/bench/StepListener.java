package org.p2psip.loadtest.bench;

/**
 * Told around every step of a max-rate search, so a caller can measure
 * something of its own over exactly that step (the scale benchmark reads
 * the nodes' DHT-operation histograms before and after).
 */
public interface StepListener {

    /** Step {@code index} (0-based, in the order run) is about to send at {@code rate} per second. */
    void starting(int index, double rate);

    /** Step {@code index} has finished and been judged. */
    void finished(int index, LoadReport report, boolean held);

    /** Tells each of {@code listeners}, in order. */
    static StepListener all(StepListener... listeners) {
        StepListener[] copy = listeners.clone();
        return new StepListener() {
            @Override
            public void starting(int index, double rate) {
                for (StepListener l : copy) {
                    l.starting(index, rate);
                }
            }

            @Override
            public void finished(int index, LoadReport report, boolean held) {
                for (StepListener l : copy) {
                    l.finished(index, report, held);
                }
            }
        };
    }

    /** Listens to nothing. */
    StepListener NONE = new StepListener() {
        @Override
        public void starting(int index, double rate) {
        }

        @Override
        public void finished(int index, LoadReport report, boolean held) {
        }
    };
}
