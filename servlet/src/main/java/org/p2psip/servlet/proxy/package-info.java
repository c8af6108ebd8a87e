/**
 * The node's stateful proxy (RFC 3261 §16) on the location service.
 * {@link org.p2psip.servlet.proxy.Proxy} validates a request, routes it, forks
 * it to the bindings of its AOR and sends upstream the response
 * {@link org.p2psip.servlet.proxy.ResponseChoice} picks (§16.7). Forking goes
 * by q-value, tries one flow of a UA instance at a time (RFC 5626 §7) and is
 * bounded, so that an unauthenticated request is not amplified. Dialogs are
 * record-routed through the balancer when there is one
 * ({@link org.p2psip.servlet.proxy.RecordRoutes}) with a token every node
 * accepts, so a call outlives the node that set it up; the Via branch doubles
 * as the loop check ({@link org.p2psip.servlet.proxy.LoopDetection}).
 */
package org.p2psip.servlet.proxy;
