package org.p2psip.core.auth;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.util.EnumMap;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalInt;

import org.p2psip.core.location.AddressOfRecord;

/**
 * One user's credentials as the cluster stores them (RFC 7616 §3.4.2 HA1
 * per algorithm; never the password): the canonical AOR the user owns, the
 * realm the HA1 values were computed for (the AOR's domain), and HA1 for
 * each algorithm the user can authenticate with.
 *
 * @param aor   the user's address-of-record, canonical (a served domain, no port)
 * @param realm the realm of every HA1
 * @param ha1   lower-case hex HA1 by algorithm; at least one
 */
public record UserCredentials(AddressOfRecord aor, String realm, Map<DigestAlgorithm, String> ha1) {

    private static final int FORMAT = 1;

    public UserCredentials {
        Objects.requireNonNull(aor, "aor");
        Objects.requireNonNull(realm, "realm");
        if (aor.user().isEmpty()) {
            throw new IllegalArgumentException("a user's address-of-record needs a user part");
        }
        if (realm.isEmpty()) {
            throw new IllegalArgumentException("the realm must not be empty");
        }
        if (ha1.isEmpty()) {
            throw new IllegalArgumentException("credentials need an HA1 for at least one algorithm");
        }
        EnumMap<DigestAlgorithm, String> copy = new EnumMap<>(DigestAlgorithm.class);
        for (Map.Entry<DigestAlgorithm, String> e : ha1.entrySet()) {
            String hex = e.getValue().toLowerCase(Locale.ROOT);
            if (hex.length() != e.getKey().hexLength() || !hex.chars().allMatch(c -> Character.digit(c, 16) >= 0)) {
                throw new IllegalArgumentException("HA1 for " + e.getKey().token() + " must be "
                        + e.getKey().hexLength() + " hex digits");
            }
            copy.put(e.getKey(), hex);
        }
        ha1 = Map.copyOf(copy);
    }

    /** Credentials from a password, with HA1 for every algorithm; the password itself is not kept. */
    public static UserCredentials fromPassword(AddressOfRecord aor, String password) {
        EnumMap<DigestAlgorithm, String> ha1 = new EnumMap<>(DigestAlgorithm.class);
        for (DigestAlgorithm a : DigestAlgorithm.values()) {
            ha1.put(a, a.ha1(aor.user(), aor.host(), password));
        }
        return new UserCredentials(aor, aor.host(), ha1);
    }

    /** HA1 for {@code algorithm}, if the user has one. */
    public Optional<String> ha1For(DigestAlgorithm algorithm) {
        return Optional.ofNullable(ha1.get(algorithm));
    }

    /**
     * Whether these credentials may act for {@code aor}: register its
     * bindings, or send requests From it. Only the user's own AOR
     * (RFC 3261 §10.3 step 3 leaves third-party registration to policy;
     * this registrar allows none).
     */
    public boolean owns(AddressOfRecord other) {
        return aor.equals(other);
    }

    public byte[] encode() {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream(160);
        try (DataOutputStream out = new DataOutputStream(bytes)) {
            out.writeByte(FORMAT);
            out.writeUTF(aor.user());
            out.writeUTF(aor.host());
            out.writeInt(aor.port().orElse(-1));
            out.writeUTF(realm);
            out.writeByte(ha1.size());
            for (DigestAlgorithm a : DigestAlgorithm.values()) {
                String h = ha1.get(a);
                if (h != null) {
                    out.writeUTF(a.token());
                    out.writeUTF(h);
                }
            }
        } catch (IOException e) {
            throw new IllegalStateException("writing to memory cannot fail", e);
        }
        return bytes.toByteArray();
    }

    /** Reads {@link #encode}'s form; algorithms this release does not know are skipped. */
    public static UserCredentials decode(byte[] bytes) {
        try (DataInputStream in = new DataInputStream(new ByteArrayInputStream(bytes))) {
            int format = in.readUnsignedByte();
            if (format != FORMAT) {
                throw new IllegalArgumentException("unknown credentials format " + format);
            }
            String user = in.readUTF();
            String host = in.readUTF();
            int port = in.readInt();
            String realm = in.readUTF();
            int n = in.readUnsignedByte();
            EnumMap<DigestAlgorithm, String> ha1 = new EnumMap<>(DigestAlgorithm.class);
            for (int i = 0; i < n; i++) {
                String token = in.readUTF();
                String hex = in.readUTF();
                DigestAlgorithm.byToken(token).ifPresent(a -> ha1.put(a, hex));
            }
            return new UserCredentials(new AddressOfRecord(user, host,
                    port < 0 ? OptionalInt.empty() : OptionalInt.of(port)), realm, ha1);
        } catch (IOException e) {
            throw new IllegalArgumentException("truncated credentials", e);
        }
    }

    @Override
    public String toString() {
        // HA1 is password-equivalent for its realm: never in a log line.
        return "UserCredentials[" + aor + ", realm=" + realm + ", algorithms=" + ha1.keySet() + "]";
    }
}
