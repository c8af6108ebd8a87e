/**
 * Just enough JSON (RFC 8259) for the documents the commands and pages write
 * by hand: {@link org.p2psip.core.json.JsonString} for string literals and
 * {@link org.p2psip.core.json.JsonNumber} for numbers, where NaN and infinity,
 * which JSON lacks, become {@code null}. Only writing is needed, so no JSON
 * library goes on the distribution's class path.
 */
package org.p2psip.core.json;
