/**
 * A node's admin endpoint and its client, behind {@code p2psip user},
 * {@code status} and {@code aor}. It is plain HTTP, which needs no
 * certificate, so every request is signed with the cluster secret
 * ({@link org.p2psip.servlet.admin.AdminSignature}, each signature accepted
 * once in the whole cluster) and its body sealed
 * ({@link org.p2psip.servlet.admin.AdminBodyCipher}), since the HA1s it
 * carries are as good as passwords. {@link org.p2psip.servlet.admin.AdminServer}
 * serves; {@link org.p2psip.servlet.admin.AdminClient} tries the given nodes
 * until one answers; {@link org.p2psip.servlet.admin.AdminDirectory} keeps the
 * endpoints in the DHT, so one address finds the others.
 */
package org.p2psip.servlet.admin;
