package org.p2psip.servlet.cli;

import java.nio.file.Path;
import java.util.Optional;

import org.p2psip.core.net.HostPort;
import org.p2psip.core.tls.TlsListener;
import org.p2psip.core.tls.TlsMaterial;
import org.p2psip.core.tls.TlsMaterialException;

import picocli.CommandLine;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;

/** A TLS listener and its certificate (RFC 3261 §26.2). */
final class TlsOptions {

    @Option(names = "--tls", paramLabel = "HOST:PORT", converter = HostPortConverter.class,
            description = "Also listen for SIP over TLS (TLS 1.2 and 1.3) here; 5061 is the usual port. "
                    + "Needs --tls-cert and --tls-key.")
    HostPort address;

    @Option(names = "--tls-cert", paramLabel = "PEM",
            description = "The certificate chain for --tls, PEM, leaf first.")
    Path certificate;

    @Option(names = "--tls-key", paramLabel = "PEM",
            description = "The private key for --tls, PEM, unencrypted (PKCS#8, RSA or EC).")
    Path key;

    /** The certificate and key, loaded; empty when --tls is not given. */
    Optional<TlsMaterial> material(CommandLine cl) {
        if (address == null) {
            if (certificate != null || key != null) {
                throw new ParameterException(cl, "--tls-cert and --tls-key need --tls HOST:PORT");
            }
            return Optional.empty();
        }
        if (certificate == null || key == null) {
            throw new ParameterException(cl, "--tls needs --tls-cert and --tls-key");
        }
        try {
            return Optional.of(TlsMaterial.load(certificate, key));
        } catch (TlsMaterialException e) {
            throw new ParameterException(cl, e.getMessage());
        }
    }

    Optional<TlsListener> listener(CommandLine cl) {
        return material(cl).map(m -> new TlsListener(address, m));
    }
}
