package org.p2psip.core.dht;

import java.util.ArrayList;
import java.util.List;
import java.util.ServiceLoader;

/** Finds DHT backends on the class path by the name given to {@code --dht}. */
public final class DhtBackends {

    private DhtBackends() {
    }

    /** The names of every backend on the class path, sorted. */
    public static List<String> names() {
        List<String> names = new ArrayList<>();
        for (DhtProvider p : ServiceLoader.load(DhtProvider.class)) {
            names.add(p.name());
        }
        names.sort(null);
        return names;
    }

    /** @throws IllegalArgumentException naming the backends that do exist */
    public static DhtProvider byName(String name) {
        for (DhtProvider p : ServiceLoader.load(DhtProvider.class)) {
            if (p.name().equals(name)) {
                return p;
            }
        }
        throw new IllegalArgumentException("unknown DHT backend '" + name + "' (available: "
                + String.join(", ", names()) + ")");
    }
}
