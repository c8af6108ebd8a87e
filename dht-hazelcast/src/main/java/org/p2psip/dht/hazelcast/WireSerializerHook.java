package org.p2psip.dht.hazelcast;

import com.hazelcast.nio.serialization.Serializer;
import com.hazelcast.nio.serialization.SerializerHook;

/**
 * Registers {@link WireSerializer} with every Hazelcast member or client that
 * has this jar on its class path (listed in
 * {@code META-INF/services/com.hazelcast.SerializerHook}). That is what lets
 * client mode work against a cluster someone else configured: its members
 * need this jar, but no serialization configuration.
 */
public final class WireSerializerHook implements SerializerHook<Wire> {

    @Override
    public Class<Wire> getSerializationType() {
        return Wire.class;
    }

    @Override
    public Serializer createSerializer() {
        return new WireSerializer();
    }

    @Override
    public boolean isOverwritable() {
        return false;
    }
}
