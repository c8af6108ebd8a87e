package org.p2psip.servlet.cli;

import org.p2psip.core.net.HostPort;

import picocli.CommandLine.ITypeConverter;
import picocli.CommandLine.TypeConversionException;

/** Reads {@code HOST[:PORT]}; without a port, 5060 (RFC 3261 §19.1.2). */
final class AliasConverter implements ITypeConverter<HostPort> {

    @Override
    public HostPort convert(String value) {
        try {
            String v = value.trim();
            boolean hasPort = v.startsWith("[") ? v.contains("]:") : v.indexOf(':') >= 0 && v.indexOf(':') == v.lastIndexOf(':');
            return hasPort ? HostPort.parse(v) : new HostPort(v, 5060);
        } catch (IllegalArgumentException e) {
            throw new TypeConversionException(e.getMessage());
        }
    }
}
