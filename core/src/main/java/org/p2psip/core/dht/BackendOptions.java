package org.p2psip.core.dht;

import java.math.BigInteger;
import java.util.Map;
import java.util.Optional;

/**
 * A backend's {@code --dht-option KEY=VALUE} settings with the value rules
 * the overlay backends share; a bad value is a {@link DhtException} whose
 * one line names the backend, the option and the value.
 *
 * @param backend names the backend in messages, e.g. "chord"
 * @param values  the options as given
 */
public record BackendOptions(String backend, Map<String, String> values) {

    public BackendOptions {
        values = Map.copyOf(values);
    }

    /** A positive whole number, or {@code fallback} when the option is absent. */
    public long positive(String key, long fallback) {
        String v = values.get(key);
        if (v == null) {
            return fallback;
        }
        try {
            long n = Long.parseLong(v.trim());
            if (n >= 1) {
                return n;
            }
        } catch (NumberFormatException e) {
            // answered below, with the value as given
        }
        throw new DhtException(backend + " option " + key + " must be a positive integer, not '" + v + "'");
    }

    /** A node id in hexadecimal, reduced into an id space of {@code size} ids; empty when absent. */
    public Optional<BigInteger> hexId(String key, BigInteger size) {
        return Optional.ofNullable(values.get(key)).map(v -> {
            try {
                return new BigInteger(v, 16).mod(size);
            } catch (NumberFormatException e) {
                throw new DhtException(backend + " option " + key + " must be hexadecimal, not '" + v + "'");
            }
        });
    }
}
