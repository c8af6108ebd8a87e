/**
 * Protection of a SIP edge against abusive sources: per-source rate limits
 * with bans (the idea of Kamailio's pike and htable modules), and logging of
 * bad input that an attacker cannot use to fill a disk. Pure logic: time is
 * an argument, nothing here touches a socket.
 */
package org.p2psip.core.guard;
