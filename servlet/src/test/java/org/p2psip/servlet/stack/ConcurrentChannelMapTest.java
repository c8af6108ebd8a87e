package org.p2psip.servlet.stack;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;

class ConcurrentChannelMapTest {

    private static final int KEYS = 20_000;

    @Test
    void putsRacingRemovesOfOtherKeysAreAllKept() throws Exception {
        HashMap<String, Integer> map = new ConcurrentChannelMap<>();
        for (int i = 0; i < KEYS; i++) {
            map.put("closed-" + i, i);
        }
        ExecutorService threads = Executors.newFixedThreadPool(3);
        try {
            CountDownLatch go = new CountDownLatch(1);
            List<Future<?>> work = new ArrayList<>();
            // As the RI's selector thread does when peers close their connections...
            work.add(threads.submit(() -> {
                go.await();
                for (int i = 0; i < KEYS; i++) {
                    map.remove("closed-" + i);
                }
                return null;
            }));
            // ...while forwarding threads put the channels of connections they opened.
            for (int t = 0; t < 2; t++) {
                int thread = t;
                work.add(threads.submit(() -> {
                    go.await();
                    for (int i = 0; i < KEYS; i++) {
                        map.put("opened-" + thread + "-" + i, i);
                    }
                    return null;
                }));
            }
            go.countDown();
            for (Future<?> f : work) {
                f.get(60, TimeUnit.SECONDS);
            }
        } finally {
            threads.shutdownNow();
        }
        assertEquals(2 * KEYS, map.size());
        for (int t = 0; t < 2; t++) {
            for (int i = 0; i < KEYS; i++) {
                assertEquals(i, map.get("opened-" + t + "-" + i), "opened-" + t + "-" + i);
            }
        }
        assertNull(map.get("closed-0"));
    }

    @Test
    void iteratingWhileAnotherThreadChangesTheMapDoesNotFail() throws Exception {
        HashMap<String, Integer> map = new ConcurrentChannelMap<>();
        for (int i = 0; i < 1_000; i++) {
            map.put("k" + i, i);
        }
        Thread writer = new Thread(() -> {
            for (int i = 1_000; i < 50_000; i++) {
                map.put("k" + i, i);
                map.remove("k" + (i - 1_000));
            }
        });
        writer.start();
        int seen = 0;
        while (writer.isAlive()) {
            for (Iterator<Map.Entry<String, Integer>> it = map.entrySet().iterator(); it.hasNext(); ) {
                Map.Entry<String, Integer> e = it.next();
                assertTrue(e.getKey().startsWith("k"));
                seen++;
            }
        }
        writer.join();
        assertTrue(seen > 0);
        assertEquals(1_000, map.size());
    }

    @Test
    void removingThroughAViewRemovesFromTheMap() {
        HashMap<String, Integer> map = new ConcurrentChannelMap<>();
        map.put("a", 1);
        map.put("b", 2);
        map.entrySet().removeIf(e -> e.getValue() == 1);
        map.keySet().remove("b");
        assertTrue(map.isEmpty());
        assertNull(map.get(null));
    }
}
