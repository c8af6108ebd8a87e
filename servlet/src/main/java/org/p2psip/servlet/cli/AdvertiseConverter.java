package org.p2psip.servlet.cli;

import java.net.InetAddress;
import java.net.UnknownHostException;

import org.p2psip.core.net.HostPort;

import picocli.CommandLine.ITypeConverter;
import picocli.CommandLine.TypeConversionException;

/**
 * {@code --advertise HOST[:PORT]}: a host alone means the bound port (port
 * 0 here). A wildcard address is refused: it names no host another
 * machine could send to.
 */
final class AdvertiseConverter implements ITypeConverter<HostPort> {

    @Override
    public HostPort convert(String value) {
        String text = value == null ? "" : value.trim();
        HostPort parsed;
        try {
            boolean hasPort = text.startsWith("[") ? text.contains("]:") : text.indexOf(':') >= 0
                    && text.indexOf(':') == text.lastIndexOf(':');
            parsed = hasPort ? HostPort.parse(text) : new HostPort(unbracketed(text), 0);
        } catch (IllegalArgumentException e) {
            throw new TypeConversionException(e.getMessage());
        }
        if (parsed.host().isEmpty()) {
            throw new TypeConversionException("'" + value + "' names no host");
        }
        if (isWildcard(parsed.host())) {
            throw new TypeConversionException("'" + value + "' is a wildcard address, which no other host can send to");
        }
        return parsed;
    }

    private static String unbracketed(String host) {
        return host.startsWith("[") && host.endsWith("]") ? host.substring(1, host.length() - 1) : host;
    }

    private static boolean isWildcard(String host) {
        if (!host.chars().allMatch(c -> Character.digit(c, 16) >= 0 || c == '.' || c == ':')) {
            return false;
        }
        try {
            return InetAddress.getByName(host).isAnyLocalAddress();
        } catch (UnknownHostException e) {
            return false;
        }
    }
}
