package org.p2psip.loadtest.bench;

import org.p2psip.core.net.HostPort;

import picocli.CommandLine.ITypeConverter;
import picocli.CommandLine.TypeConversionException;

/** Reads {@code HOST:PORT} values of the bench commands. */
final class TargetConverter implements ITypeConverter<HostPort> {

    @Override
    public HostPort convert(String value) {
        try {
            return HostPort.parse(value);
        } catch (IllegalArgumentException e) {
            throw new TypeConversionException(e.getMessage());
        }
    }
}
