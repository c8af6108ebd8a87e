/**
 * The registrar's location service (RFC 3261 §10) on the DHT, free of any
 * SIP stack. An AOR's bindings are one value under one key, a
 * {@link org.p2psip.core.location.BindingSet};
 * {@link org.p2psip.core.location.RegistrarRules} applies a REGISTER to them
 * (§10.3 steps 6 to 8) as a pure function, all or nothing, and
 * {@link org.p2psip.core.location.LocationService} writes the result back with
 * a version-conditional put, retried from a fresh read on a conflict, so
 * REGISTERs racing for one AOR on different nodes both take effect.
 * {@link org.p2psip.core.location.AddressOfRecord} and
 * {@link org.p2psip.core.location.SipUri} give the canonical forms (§10.3
 * step 5, §19.1.4) that keep two spellings of one user on one key.
 */
package org.p2psip.core.location;
