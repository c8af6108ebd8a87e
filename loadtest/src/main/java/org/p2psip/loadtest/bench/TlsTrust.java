package org.p2psip.loadtest.bench;

import java.io.IOException;
import java.io.InputStream;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.security.cert.CertPathBuilderException;
import java.security.cert.CertPathValidatorException;
import java.security.cert.Certificate;
import java.security.cert.CertificateException;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.SSLParameters;
import javax.net.ssl.TrustManager;
import javax.net.ssl.TrustManagerFactory;
import javax.net.ssl.X509ExtendedTrustManager;
import javax.net.ssl.X509TrustManager;

import org.p2psip.core.tls.TlsMaterial;

/**
 * Whom the generator's TLS lanes trust (RFC 3261 §26.3.1: a client must
 * check the server's certificate). By default the JDK's certificate
 * authorities plus any certificates given with {@code --tls-ca} (a cluster's
 * self-signed {@code cert.pem} is its own authority), and the target's
 * certificate must name the host the target was given as, by a
 * subjectAltName dNSName or iPAddress (RFC 5922 §7.1, which rules out the
 * Common Name). {@link #insecure()} checks nothing, for a quick look at a
 * lab cluster whose certificate is at hand nowhere.
 *
 * <p>Engines offer TLS 1.3 and 1.2 only ({@link TlsMaterial#PROTOCOLS}), as
 * the cluster's own do. The {@link SSLContext} is built on first use, so a
 * run without TLS never reads the JDK's trust store.
 */
public final class TlsTrust {

    private final List<X509Certificate> extraAnchors;
    private final boolean insecure;
    private volatile SSLContext context;

    private TlsTrust(List<X509Certificate> extraAnchors, boolean insecure) {
        this.extraAnchors = List.copyOf(extraAnchors);
        this.insecure = insecure;
    }

    /** The JDK's certificate authorities. */
    public static TlsTrust jdkDefaults() {
        return new TlsTrust(List.of(), false);
    }

    /**
     * The JDK's certificate authorities and every certificate in the PEM
     * files {@code caFiles}.
     *
     * @throws BenchException with a one-line reason: a missing or unreadable file, no certificate in it
     */
    public static TlsTrust jdkDefaultsAnd(List<Path> caFiles) {
        List<X509Certificate> anchors = new ArrayList<>();
        for (Path file : caFiles) {
            anchors.addAll(readCertificates(file));
        }
        return new TlsTrust(anchors, false);
    }

    /** Trusts any certificate for any name: the traffic is encrypted but nobody is authenticated. */
    public static TlsTrust insecure() {
        return new TlsTrust(List.of(), true);
    }

    /** Whether this checks nothing. */
    public boolean isInsecure() {
        return insecure;
    }

    /** The certificates trusted besides the JDK's authorities. */
    public List<X509Certificate> extraAnchors() {
        return extraAnchors;
    }

    /**
     * A client engine for a connection to {@code host}:{@code port}:
     * {@code host} goes in the server name indication and is what the
     * certificate must name.
     */
    public SSLEngine clientEngine(String host, int port) {
        SSLEngine engine = context().createSSLEngine(host, port);
        engine.setUseClientMode(true);
        SSLParameters p = engine.getSSLParameters();
        List<String> supported = Arrays.asList(engine.getSupportedProtocols());
        p.setProtocols(TlsMaterial.PROTOCOLS.stream().filter(supported::contains).toArray(String[]::new));
        if (!insecure) {
            // The JDK's "HTTPS" identification is the subjectAltName check of RFC 2818 §3.1,
            // which is what RFC 5922 §7.1 asks for a host given as a name or an address.
            p.setEndpointIdentificationAlgorithm("HTTPS");
        }
        engine.setSSLParameters(p);
        return engine;
    }

    /**
     * One line saying why a handshake failed, with the flag that would fix
     * it when the certificate was the reason.
     */
    static String handshakeFailure(Throwable failure) {
        Throwable deepest = failure;
        for (Throwable t = failure; t != null; t = t.getCause()) {
            if (t instanceof CertPathBuilderException || t instanceof CertPathValidatorException) {
                return "its certificate is not trusted (give the certificate or its CA with --tls-ca, "
                        + "or use --tls-insecure)";
            }
            if (t instanceof CertificateException && t.getMessage() != null
                    && t.getMessage().startsWith("No subject alternative")) {
                return "its certificate is for another name (" + t.getMessage() + ")";
            }
            deepest = t;
        }
        String message = deepest.getMessage();
        return message == null || message.isBlank() ? deepest.getClass().getSimpleName() : message;
    }

    private SSLContext context() {
        SSLContext c = context;
        if (c == null) {
            synchronized (this) {
                c = context;
                if (c == null) {
                    c = newContext();
                    context = c;
                }
            }
        }
        return c;
    }

    private SSLContext newContext() {
        try {
            SSLContext c = SSLContext.getInstance("TLS");
            c.init(null, new TrustManager[] {insecure ? new TrustingAnything() : trustManager()}, null);
            return c;
        } catch (GeneralSecurityException | IOException e) {
            throw new BenchException("cannot set up TLS: " + e.getMessage(), e);
        }
    }

    private X509TrustManager trustManager() throws GeneralSecurityException, IOException {
        TrustManagerFactory defaults = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
        defaults.init((KeyStore) null);
        if (extraAnchors.isEmpty()) {
            return x509(defaults);
        }
        // A trust manager takes one key store: the JDK's anchors are copied next to the extra ones.
        KeyStore anchors = KeyStore.getInstance("PKCS12");
        anchors.load(null, null);
        int n = 0;
        for (X509Certificate ca : x509(defaults).getAcceptedIssuers()) {
            anchors.setCertificateEntry("jdk" + n++, ca);
        }
        for (X509Certificate ca : extraAnchors) {
            anchors.setCertificateEntry("given" + n++, ca);
        }
        TrustManagerFactory f = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
        f.init(anchors);
        return x509(f);
    }

    private static X509TrustManager x509(TrustManagerFactory f) throws GeneralSecurityException {
        for (TrustManager tm : f.getTrustManagers()) {
            if (tm instanceof X509TrustManager x) {
                return x;
            }
        }
        throw new GeneralSecurityException("no X.509 trust manager");
    }

    private static List<X509Certificate> readCertificates(Path file) {
        try (InputStream in = Files.newInputStream(file)) {
            List<X509Certificate> certificates = new ArrayList<>();
            for (Certificate c : CertificateFactory.getInstance("X.509").generateCertificates(in)) {
                certificates.add((X509Certificate) c);
            }
            if (certificates.isEmpty()) {
                throw new BenchException("no PEM certificate in " + file);
            }
            return certificates;
        } catch (NoSuchFileException e) {
            throw new BenchException("certificate file " + file + " does not exist");
        } catch (IOException e) {
            throw new BenchException("cannot read certificate file " + file + " (" + e.getMessage() + ")");
        } catch (CertificateException e) {
            throw new BenchException("no PEM certificate in " + file + " (" + oneLine(e.getMessage()) + ")");
        }
    }

    private static String oneLine(String s) {
        return s == null ? "unreadable" : s.replace('\n', ' ').replace('\r', ' ');
    }

    /**
     * Accepts every chain. Extended, so that the JDK does not wrap it in a
     * manager that checks the host name after all.
     */
    private static final class TrustingAnything extends X509ExtendedTrustManager {

        @Override
        public void checkClientTrusted(X509Certificate[] chain, String authType, Socket socket) {
        }

        @Override
        public void checkServerTrusted(X509Certificate[] chain, String authType, Socket socket) {
        }

        @Override
        public void checkClientTrusted(X509Certificate[] chain, String authType, SSLEngine engine) {
        }

        @Override
        public void checkServerTrusted(X509Certificate[] chain, String authType, SSLEngine engine) {
        }

        @Override
        public void checkClientTrusted(X509Certificate[] chain, String authType) {
        }

        @Override
        public void checkServerTrusted(X509Certificate[] chain, String authType) {
        }

        @Override
        public X509Certificate[] getAcceptedIssuers() {
            return new X509Certificate[0];
        }
    }
}
