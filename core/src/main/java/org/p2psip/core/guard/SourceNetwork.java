package org.p2psip.core.guard;

import java.net.Inet4Address;
import java.net.InetAddress;
import java.util.HexFormat;

/**
 * The network an address belongs to for limits that one host with many
 * addresses must not escape: an IPv4 /24, an IPv6 /64 (the smallest
 * prefix a site is routinely given, RFC 6177).
 */
public final class SourceNetwork {

    private SourceNetwork() {
    }

    /** {@code 192.0.2/24}, {@code 20010db8000000a1/64}: equal for the addresses of one network. */
    public static String of(InetAddress address) {
        byte[] b = address.getAddress();
        if (address instanceof Inet4Address) {
            return (b[0] & 0xff) + "." + (b[1] & 0xff) + "." + (b[2] & 0xff) + "/24";
        }
        return HexFormat.of().formatHex(b, 0, 8) + "/64";
    }
}
