package org.p2psip.dht.hazelcast;

import java.io.IOException;

import com.hazelcast.nio.ObjectDataInput;
import com.hazelcast.nio.ObjectDataOutput;
import com.hazelcast.nio.serialization.StreamSerializer;

/**
 * Writes every {@link Wire} record as a one-byte tag and its fields, so a
 * stored value costs its bytes plus 21 bytes, and an operation carries no
 * Java serialization class descriptors. Java serialization would otherwise be
 * chosen for the entry processors (they are {@code Serializable} by
 * Hazelcast's interface), and records cannot implement Hazelcast's mutable
 * {@code DataSerializable}.
 */
final class WireSerializer implements StreamSerializer<Wire> {

    /** Hazelcast's id for this serializer; any positive number unused by other custom serializers. */
    static final int TYPE_ID = 0x5195;

    private static final byte STORED_VALUE = 1;
    private static final byte PUT_IF_VERSION = 2;
    private static final byte REMOVE_IF_VERSION = 3;
    private static final byte PLACED_KEY = 4;
    private static final byte RESTORE_IF_NEWER = 5;

    @Override
    public int getTypeId() {
        return TYPE_ID;
    }

    @Override
    public void write(ObjectDataOutput out, Wire wire) throws IOException {
        if (wire instanceof StoredValue v) {
            out.writeByte(STORED_VALUE);
            out.writeByteArray(v.value());
            out.writeLong(v.version());
            out.writeLong(v.expiresAtMillis());
        } else if (wire instanceof PutIfVersion p) {
            out.writeByte(PUT_IF_VERSION);
            out.writeLong(p.expectedVersion());
            out.writeByteArray(p.value());
            out.writeLong(p.expiresAtMillis());
            out.writeLong(p.nowMillis());
            out.writeLong(p.newVersion());
        } else if (wire instanceof RemoveIfVersion r) {
            out.writeByte(REMOVE_IF_VERSION);
            out.writeLong(r.expectedVersion());
            out.writeLong(r.nowMillis());
        } else if (wire instanceof PlacedKey k) {
            out.writeByte(PLACED_KEY);
            out.writeString(k.key());
            out.writeInt(k.representative());
        } else if (wire instanceof RestoreIfNewer r) {
            out.writeByte(RESTORE_IF_NEWER);
            out.writeByteArray(r.value());
            out.writeLong(r.version());
            out.writeLong(r.expiresAtMillis());
            out.writeLong(r.nowMillis());
        } else {
            throw new IOException("no wire format for " + wire.getClass().getName());
        }
    }

    @Override
    public Wire read(ObjectDataInput in) throws IOException {
        byte tag = in.readByte();
        return switch (tag) {
            case STORED_VALUE -> new StoredValue(in.readByteArray(), in.readLong(), in.readLong());
            case PUT_IF_VERSION -> new PutIfVersion(in.readLong(), in.readByteArray(), in.readLong(), in.readLong(),
                    in.readLong());
            case REMOVE_IF_VERSION -> new RemoveIfVersion(in.readLong(), in.readLong());
            case PLACED_KEY -> new PlacedKey(in.readString(), in.readInt());
            case RESTORE_IF_NEWER -> new RestoreIfNewer(in.readByteArray(), in.readLong(), in.readLong(),
                    in.readLong());
            default -> throw new IOException("unknown p2psip wire tag " + tag
                    + " (members and clients running different p2psip versions?)");
        };
    }
}
