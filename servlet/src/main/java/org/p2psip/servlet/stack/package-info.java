/**
 * What a front node adds to the JAIN-SIP RI, plugged in through the class
 * names the stack's properties take: defences at the transports, and fixes
 * for defects of RI 1.3.0-91 (outgoing TCP connections dropped from its
 * table, TLS records sent out of order, one call's UDP messages overtaking
 * each other). {@link org.p2psip.servlet.stack.GuardedMessageProcessorFactory}
 * puts rate limits, overload shedding, size limits and connection caps in
 * front of the parser, refusing statelessly (RFC 3261 §8.2.6);
 * {@link org.p2psip.servlet.stack.ScreeningParserFactory} counts and screens
 * malformed input. Because the RI builds these by class name, they find their
 * node's settings in {@link org.p2psip.servlet.stack.EdgeGuards}, keyed by
 * stack name.
 */
package org.p2psip.servlet.stack;
