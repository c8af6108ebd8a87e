/**
 * Protection of a SIP edge against abusive sources: per-source rate limits
 * with bans (the idea of Kamailio's pike and htable modules), logging of
 * bad input that an attacker cannot use to fill a disk, and refusal of work
 * an overloaded node cannot carry (its SIP queue's delay, its requests in
 * flight on the DHT). Pure logic: time is an argument, nothing here touches
 * a socket.
 */
package org.p2psip.core.guard;
