/**
 * Several hosts on one machine, for {@code p2psip cluster --netns} and tests:
 * each a Linux network namespace with its own address on a bridge of their
 * own, so that what loopback hides (advertised addresses, who can reach whom)
 * shows. {@link org.p2psip.servlet.netns.NamespaceHosts} makes them with
 * iproute2, which needs root, and removes them on close;
 * {@link org.p2psip.servlet.netns.NamespaceHostsException} says in one line
 * why they could not be made.
 */
package org.p2psip.servlet.netns;
