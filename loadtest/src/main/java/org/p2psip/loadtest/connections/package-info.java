/**
 * {@code p2psip bench connections}: many TCP connections held open to a node
 * or a balancer on loopback, to see how its idle timeout, message deadline
 * ({@code --slowloris}) and connection caps treat them, what they cost it in
 * memory and, with {@code --register-rate}, how it carries REGISTER refreshes
 * over all of them. {@link org.p2psip.loadtest.connections.ConnectionsCommand}
 * is the command; {@link org.p2psip.loadtest.connections.ConnectionsRun} does
 * the work on one thread with one selector, so each connection costs the
 * generator a file descriptor, not a thread, and
 * {@link org.p2psip.loadtest.connections.RefreshLoad} sends the refreshes.
 */
package org.p2psip.loadtest.connections;
