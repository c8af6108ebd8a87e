package org.p2psip.core.tls;

/**
 * A certificate or key that cannot be used, with a one-line reason meant
 * for the operator ("no certificate in cert.pem", "the key does not belong
 * to the certificate"): command lines print it as it is.
 */
public final class TlsMaterialException extends Exception {

    public TlsMaterialException(String message) {
        super(message.replace('\n', ' ').replace('\r', ' '), null, false, false);
    }
}
