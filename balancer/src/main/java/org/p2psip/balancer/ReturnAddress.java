package org.p2psip.balancer;

import org.p2psip.sip.wire.Transport;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;
import java.util.HexFormat;
import java.util.Objects;
import java.util.Optional;

/**
 * Where the response to a forwarded request must go, written into the
 * balancer's own Via entry as the {@code lb} parameter so that the balancer
 * keeps no per-transaction state (RFC 3261 §16.11: a stateless proxy routes
 * responses from the Via alone).
 *
 * <p>The token is {@code u} (UDP), {@code t} (TCP) or {@code s} (TLS), the
 * address octets in hex, {@code -}, the port in hex and, for TCP and TLS,
 * {@code -} and the connection id in hex: only token characters, so it
 * fits a Via parameter without quoting, IPv6 included.
 *
 * @param transport  UDP: send a datagram to {@code address}; TCP, TLS: write on connection {@code connection}
 * @param address    the client's transport address (§18.2.2 received + sent-by or rport)
 * @param connection the connection id from {@link TcpConnections}; 0 for UDP
 */
public record ReturnAddress(Transport transport, InetSocketAddress address, long connection) {

    private static final HexFormat HEX = HexFormat.of();

    public ReturnAddress {
        Objects.requireNonNull(transport, "transport");
        Objects.requireNonNull(address, "address");
        if (address.isUnresolved()) {
            throw new IllegalArgumentException("return address must be resolved: " + address);
        }
    }

    /** The Via parameter value. */
    public String token() {
        StringBuilder b = new StringBuilder(32);
        b.append(kind(transport))
                .append(HEX.formatHex(address.getAddress().getAddress()))
                .append('-').append(Integer.toHexString(address.getPort()));
        if (transport.stream()) {
            b.append('-').append(Long.toHexString(connection));
        }
        return b.toString();
    }

    private static char kind(Transport t) {
        return switch (t) {
            case UDP -> 'u';
            case TCP -> 't';
            case TLS -> 's';
        };
    }

    /** Reads a token written by {@link #token()}; empty for anything else. */
    public static Optional<ReturnAddress> parse(String token) {
        if (token == null || token.length() < 4 || token.length() > 64) {
            return Optional.empty();
        }
        Transport transport = switch (token.charAt(0)) {
            case 'u' -> Transport.UDP;
            case 't' -> Transport.TCP;
            case 's' -> Transport.TLS;
            default -> null;
        };
        if (transport == null) {
            return Optional.empty();
        }
        String[] parts = token.substring(1).split("-", -1);
        if (parts.length != (transport.stream() ? 3 : 2)) {
            return Optional.empty();
        }
        try {
            byte[] ip = HEX.parseHex(parts[0]);
            if (ip.length != 4 && ip.length != 16) {
                return Optional.empty();
            }
            int port = Integer.parseInt(parts[1], 16);
            if (port < 1 || port > 65535) {
                return Optional.empty();
            }
            long connection = transport.stream() ? Long.parseUnsignedLong(parts[2], 16) : 0;
            return Optional.of(new ReturnAddress(transport, new InetSocketAddress(InetAddress.getByAddress(ip), port),
                    connection));
        } catch (IllegalArgumentException | UnknownHostException e) {
            return Optional.empty();
        }
    }
}
