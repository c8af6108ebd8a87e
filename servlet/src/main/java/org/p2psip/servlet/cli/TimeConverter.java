package org.p2psip.servlet.cli;

import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.time.format.DateTimeParseException;

import picocli.CommandLine.ITypeConverter;
import picocli.CommandLine.TypeConversionException;

/**
 * A point in time on the command line, ISO 8601: an instant with its
 * offset ({@code 2026-11-27T10:00:00Z}, {@code 2026-11-27T11:00+01:00}),
 * a date and time without one, taken as UTC ({@code 2026-11-27T10:00}),
 * or a date, meaning its first instant in UTC ({@code 2026-11-27}).
 */
final class TimeConverter implements ITypeConverter<Instant> {

    @Override
    public Instant convert(String value) {
        String v = value.strip();
        try {
            return OffsetDateTime.parse(v).toInstant();
        } catch (DateTimeParseException notWithOffset) {
            try {
                return LocalDateTime.parse(v).toInstant(ZoneOffset.UTC);
            } catch (DateTimeParseException notDateTime) {
                try {
                    return LocalDate.parse(v).atStartOfDay(ZoneOffset.UTC).toInstant();
                } catch (DateTimeParseException notDate) {
                    throw new TypeConversionException("'" + value + "' is not a time: give an ISO 8601 instant such "
                            + "as 2026-11-27T10:00:00Z, or a date such as 2026-11-27 (midnight UTC)");
                }
            }
        }
    }
}
