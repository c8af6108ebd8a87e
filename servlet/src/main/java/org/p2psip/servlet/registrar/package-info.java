/**
 * The node's registrar (RFC 3261 §10.3) for the domains the cluster serves,
 * on the binding rules of {@code org.p2psip.core.location}.
 * {@link org.p2psip.servlet.registrar.RegisterTranslation} reads a JAIN-SIP
 * REGISTER into core's stack-free request and refuses a bad one with 400
 * before it can write anything; {@link org.p2psip.servlet.registrar.Registrar}
 * authenticates it and applies it without blocking a SIP thread, and
 * {@link org.p2psip.servlet.registrar.RegisterResponses} writes the answer
 * (step 8). {@link org.p2psip.servlet.registrar.RegistrationCap} answers 503
 * to REGISTERs that could add a binding once the node holds as many values as
 * it may, rather than let the heap grow until the node dies.
 */
package org.p2psip.servlet.registrar;
