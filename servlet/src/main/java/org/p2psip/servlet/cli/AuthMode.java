package org.p2psip.servlet.cli;

import java.util.Locale;

import picocli.CommandLine.ITypeConverter;
import picocli.CommandLine.TypeConversionException;

/** The {@code --auth} values of {@code node}, {@code cluster} and {@code bench}. */
public enum AuthMode {

    /** Digest authentication of REGISTERs and of requests from local users. */
    REQUIRED,
    /** Nobody is asked for credentials: closed test networks only. */
    NONE;

    /** The value as written on the command line. */
    public String flag() {
        return name().toLowerCase(Locale.ROOT);
    }

    public boolean required() {
        return this == REQUIRED;
    }

    @Override
    public String toString() {
        return flag();
    }

    /** Reads {@code required} or {@code none}, naming both when the value is neither. */
    public static final class Converter implements ITypeConverter<AuthMode> {
        @Override
        public AuthMode convert(String value) {
            for (AuthMode m : values()) {
                if (m.flag().equalsIgnoreCase(value.strip())) {
                    return m;
                }
            }
            throw new TypeConversionException("'" + value + "' is not an --auth value (required or none)");
        }
    }
}
