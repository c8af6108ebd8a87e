package org.p2psip.core.tls;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.Reader;
import java.io.StringReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.security.PrivateKey;
import java.security.PublicKey;
import java.security.Signature;
import java.security.cert.Certificate;
import java.security.cert.CertificateException;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;

import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.SSLParameters;
import javax.net.ssl.TrustManager;
import javax.net.ssl.TrustManagerFactory;
import javax.net.ssl.X509TrustManager;

import org.bouncycastle.asn1.pkcs.PrivateKeyInfo;
import org.bouncycastle.openssl.PEMEncryptedKeyPair;
import org.bouncycastle.openssl.PEMException;
import org.bouncycastle.openssl.PEMKeyPair;
import org.bouncycastle.openssl.PEMParser;
import org.bouncycastle.openssl.jcajce.JcaPEMKeyConverter;
import org.bouncycastle.pkcs.PKCS8EncryptedPrivateKeyInfo;

/**
 * A certificate chain and its private key, ready for SIP over TLS (RFC 3261
 * §26.2.1, §26.3.1; RFC 5630 for today's reading of it): the balancer's and
 * the node's TLS listeners and the node's TLS client connections all take
 * their engines from here, so the protocol floor is set in one place —
 * TLS 1.2 and 1.3 only (RFC 8996 deprecated 1.0 and 1.1).
 *
 * <p>Loaded from PEM files as OpenSSL and the ACME clients write them: the
 * certificate file holds the leaf first and then any intermediates; the
 * key file holds an unencrypted private key as PKCS#8 ({@code BEGIN PRIVATE
 * KEY}), PKCS#1 ({@code BEGIN RSA PRIVATE KEY}) or SEC 1 ({@code BEGIN EC
 * PRIVATE KEY}). A key that does not match the leaf is refused at load time,
 * where the operator sees it, not at the first handshake.
 *
 * <p>For Netty's {@code SslContextBuilder.forServer(PrivateKey,
 * X509Certificate...)}, use {@link #privateKey()} and {@link
 * #certificateChainArray()}; for JAIN-SIP and other {@code javax.net.ssl}
 * users, {@link #keyStore()} (PKCS#12 in memory, entry {@link #ALIAS},
 * password {@link #keyStorePassword()}) or {@link #sslContext()}.
 */
public final class TlsMaterial {

    /** The protocols every engine made here offers, newest first. */
    public static final List<String> PROTOCOLS = List.of("TLSv1.3", "TLSv1.2");
    /** The key entry's name in {@link #keyStore()}. */
    public static final String ALIAS = "p2psip";

    // The key store only lives in memory; a password is required by the API, not a secret.
    private static final char[] KEY_STORE_PASSWORD = "p2psip".toCharArray();

    private final PrivateKey key;
    private final List<X509Certificate> chain;
    private final KeyStore keyStore;
    private final X509TrustManager trustManager;
    private final SSLContext context;

    private TlsMaterial(PrivateKey key, List<X509Certificate> chain) throws TlsMaterialException {
        this.key = key;
        this.chain = List.copyOf(chain);
        try {
            keyStore = KeyStore.getInstance("PKCS12");
            keyStore.load(null, null);
            keyStore.setKeyEntry(ALIAS, key, KEY_STORE_PASSWORD, chain.toArray(Certificate[]::new));
            KeyManagerFactory kmf = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
            kmf.init(keyStore, KEY_STORE_PASSWORD);
            trustManager = trustingDefaultsAnd(chain);
            context = SSLContext.getInstance("TLS");
            context.init(kmf.getKeyManagers(), new TrustManager[] {trustManager}, null);
        } catch (GeneralSecurityException | IOException e) {
            throw new TlsMaterialException("cannot set up TLS with this key and certificate: " + e.getMessage());
        }
    }

    /**
     * Reads a PEM certificate chain and a PEM private key.
     *
     * @throws TlsMaterialException with a one-line reason: a missing or unreadable file, no certificate,
     *                              an encrypted or unknown key, a key that does not match the certificate
     */
    public static TlsMaterial load(Path certificatePem, Path keyPem) throws TlsMaterialException {
        List<X509Certificate> chain = readCertificates(certificatePem);
        PrivateKey key = readKey(keyPem);
        return of(key, chain);
    }

    /** The same from a key and chain already in memory (leaf first). */
    public static TlsMaterial of(PrivateKey key, List<X509Certificate> chain) throws TlsMaterialException {
        Objects.requireNonNull(key, "key");
        if (chain.isEmpty()) {
            throw new TlsMaterialException("no certificate");
        }
        checkPair(key, chain.get(0).getPublicKey());
        return new TlsMaterial(key, chain);
    }

    public PrivateKey privateKey() {
        return key;
    }

    /** Leaf first. */
    public List<X509Certificate> certificateChain() {
        return chain;
    }

    /** Leaf first, as Netty's {@code SslContextBuilder} takes it. */
    public X509Certificate[] certificateChainArray() {
        return chain.toArray(X509Certificate[]::new);
    }

    /** The key and chain as a PKCS#12 key store (in memory) under {@link #ALIAS}. */
    public KeyStore keyStore() {
        return keyStore;
    }

    /** The password of {@link #keyStore()} and of its key entry; a fresh copy each time. */
    public char[] keyStorePassword() {
        return KEY_STORE_PASSWORD.clone();
    }

    /**
     * Trusts the JDK's certificate authorities and this material's own
     * certificates, so the nodes of one cluster sharing a self-signed
     * certificate ({@link SelfSignedTls}) accept each other.
     */
    public X509TrustManager trustManager() {
        return trustManager;
    }

    /** A context whose key manager presents this chain and whose trust manager is {@link #trustManager()}. */
    public SSLContext sslContext() {
        return context;
    }

    /** A server-side engine offering {@link #PROTOCOLS} only. */
    public SSLEngine serverEngine() {
        SSLEngine engine = context.createSSLEngine();
        engine.setUseClientMode(false);
        restrict(engine);
        return engine;
    }

    /**
     * A client-side engine offering {@link #PROTOCOLS} only, with the peer
     * named for session resumption and SNI. Host name checking against the
     * certificate (RFC 5922) is the caller's: a SIP domain is not what
     * HTTPS endpoint identification checks.
     */
    public SSLEngine clientEngine(String peerHost, int peerPort) {
        SSLEngine engine = context.createSSLEngine(peerHost, peerPort);
        engine.setUseClientMode(true);
        restrict(engine);
        return engine;
    }

    private static void restrict(SSLEngine engine) {
        List<String> supported = Arrays.asList(engine.getSupportedProtocols());
        String[] protocols = PROTOCOLS.stream().filter(supported::contains).toArray(String[]::new);
        SSLParameters p = engine.getSSLParameters();
        p.setProtocols(protocols);
        engine.setSSLParameters(p);
    }

    private static List<X509Certificate> readCertificates(Path file) throws TlsMaterialException {
        byte[] bytes = read(file, "certificate");
        try {
            List<X509Certificate> chain = new ArrayList<>();
            for (Certificate c : CertificateFactory.getInstance("X.509")
                    .generateCertificates(new ByteArrayInputStream(bytes))) {
                chain.add((X509Certificate) c);
            }
            if (chain.isEmpty()) {
                throw new TlsMaterialException("no certificate in " + file);
            }
            return chain;
        } catch (CertificateException e) {
            throw new TlsMaterialException("no PEM certificate in " + file + " (" + e.getMessage() + ")");
        }
    }

    private static PrivateKey readKey(Path file) throws TlsMaterialException {
        String text = new String(read(file, "key"), StandardCharsets.US_ASCII);
        try (Reader r = new StringReader(text); PEMParser pem = new PEMParser(r)) {
            JcaPEMKeyConverter converter = new JcaPEMKeyConverter();
            for (Object o = pem.readObject(); o != null; o = pem.readObject()) {
                if (o instanceof PrivateKeyInfo info) {
                    return converter.getPrivateKey(info);
                }
                if (o instanceof PEMKeyPair pair) {
                    return converter.getKeyPair(pair).getPrivate();
                }
                if (o instanceof PKCS8EncryptedPrivateKeyInfo || o instanceof PEMEncryptedKeyPair) {
                    throw new TlsMaterialException("the key in " + file + " is encrypted; "
                            + "decrypt it first (openssl pkey -in KEY -out PLAIN)");
                }
                // Anything else (parameters, a certificate in the same file) is skipped.
            }
            throw new TlsMaterialException("no PEM private key in " + file
                    + " (expected BEGIN PRIVATE KEY, BEGIN RSA PRIVATE KEY or BEGIN EC PRIVATE KEY)");
        } catch (PEMException e) {
            throw new TlsMaterialException("unreadable private key in " + file + " (" + e.getMessage() + ")");
        } catch (IOException e) {
            throw new TlsMaterialException("unreadable private key in " + file + " (" + e.getMessage() + ")");
        }
    }

    private static byte[] read(Path file, String what) throws TlsMaterialException {
        try {
            return Files.readAllBytes(file);
        } catch (NoSuchFileException e) {
            throw new TlsMaterialException(what + " file " + file + " does not exist");
        } catch (IOException e) {
            throw new TlsMaterialException("cannot read " + what + " file " + file + " (" + e.getMessage() + ")");
        }
    }

    /** Signs a probe with the key and checks it with the certificate's public key. */
    private static void checkPair(PrivateKey key, PublicKey certified) throws TlsMaterialException {
        if (!key.getAlgorithm().equals(certified.getAlgorithm())) {
            throw new TlsMaterialException("the key (" + key.getAlgorithm() + ") does not belong to the certificate ("
                    + certified.getAlgorithm() + ")");
        }
        String algorithm = switch (key.getAlgorithm()) {
            case "RSA" -> "SHA256withRSA";
            case "EC" -> "SHA256withECDSA";
            case "Ed25519", "EdDSA" -> "Ed25519";
            case "Ed448" -> "Ed448";
            case "DSA" -> "SHA256withDSA";
            default -> null;
        };
        if (algorithm == null) {
            return;
        }
        try {
            byte[] probe = "p2psip key check".getBytes(StandardCharsets.US_ASCII);
            Signature signer = Signature.getInstance(algorithm);
            signer.initSign(key);
            signer.update(probe);
            byte[] signature = signer.sign();
            Signature verifier = Signature.getInstance(algorithm);
            verifier.initVerify(certified);
            verifier.update(probe);
            if (!verifier.verify(signature)) {
                throw new TlsMaterialException("the key does not belong to the certificate");
            }
        } catch (GeneralSecurityException e) {
            throw new TlsMaterialException("the key does not belong to the certificate (" + e.getMessage() + ")");
        }
    }

    private static X509TrustManager trustingDefaultsAnd(List<X509Certificate> own) throws GeneralSecurityException,
            IOException {
        TrustManagerFactory defaults = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
        defaults.init((KeyStore) null);
        KeyStore anchors = KeyStore.getInstance("PKCS12");
        anchors.load(null, null);
        int n = 0;
        for (TrustManager tm : defaults.getTrustManagers()) {
            if (tm instanceof X509TrustManager x) {
                for (X509Certificate ca : x.getAcceptedIssuers()) {
                    anchors.setCertificateEntry("ca" + n++, ca);
                }
            }
        }
        for (X509Certificate c : own) {
            anchors.setCertificateEntry("own" + n++, c);
        }
        TrustManagerFactory tmf = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
        tmf.init(anchors);
        for (TrustManager tm : tmf.getTrustManagers()) {
            if (tm instanceof X509TrustManager x) {
                return x;
            }
        }
        throw new GeneralSecurityException("no X.509 trust manager");
    }
}
