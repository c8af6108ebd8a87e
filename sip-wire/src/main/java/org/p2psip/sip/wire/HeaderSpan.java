package org.p2psip.sip.wire;

/**
 * Where one header line sits in a message: offsets into the frame's bytes.
 *
 * @param lineStart  first byte of the header name
 * @param valueStart first byte of the value, after the colon and white space
 * @param valueEnd   one past the value's last non-blank byte (folded lines included)
 * @param lineEnd    one past the line feed that ends the header, continuation lines included
 */
public record HeaderSpan(int lineStart, int valueStart, int valueEnd, int lineEnd) {
}
