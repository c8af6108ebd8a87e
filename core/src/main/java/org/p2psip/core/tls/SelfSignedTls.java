package org.p2psip.core.tls;

import java.io.IOException;
import java.math.BigInteger;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.GeneralSecurityException;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.SecureRandom;
import java.security.cert.X509Certificate;
import java.security.spec.ECGenParameterSpec;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Base64;
import java.util.Date;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.regex.Pattern;

import org.bouncycastle.asn1.x500.X500NameBuilder;
import org.bouncycastle.asn1.x500.style.BCStyle;
import org.bouncycastle.asn1.x509.BasicConstraints;
import org.bouncycastle.asn1.x509.ExtendedKeyUsage;
import org.bouncycastle.asn1.x509.Extension;
import org.bouncycastle.asn1.x509.GeneralName;
import org.bouncycastle.asn1.x509.GeneralNames;
import org.bouncycastle.asn1.x509.KeyPurposeId;
import org.bouncycastle.asn1.x509.KeyUsage;
import org.bouncycastle.cert.CertIOException;
import org.bouncycastle.cert.X509v3CertificateBuilder;
import org.bouncycastle.cert.jcajce.JcaX509CertificateConverter;
import org.bouncycastle.cert.jcajce.JcaX509v3CertificateBuilder;
import org.bouncycastle.operator.OperatorCreationException;
import org.bouncycastle.operator.jcajce.JcaContentSignerBuilder;

/**
 * A self-signed certificate for a test or lab cluster started without one
 * ({@code p2psip cluster}): an ECDSA P-256 key and a certificate whose
 * subjectAltName lists every host name (dNSName) and IP address
 * (iPAddress) the cluster is reached by, which is what a SIP client checks
 * (RFC 5922 §7.1: subjectAltName, not the Common Name). Extended key usage
 * allows both server and client authentication, because nodes also open
 * TLS connections to each other and to clients.
 *
 * <p>Clients must be told to trust it (SIPp {@code -tls_ca}, {@code openssl
 * s_client -CAfile}); {@link TlsMaterial#trustManager()} trusts it for the
 * cluster's own connections.
 */
public final class SelfSignedTls {

    public static final String CERTIFICATE_FILE = "cert.pem";
    public static final String KEY_FILE = "key.pem";
    /** Long enough for a lab, short enough that a leaked lab key does not live forever. */
    public static final Duration VALIDITY = Duration.ofDays(825);

    private static final Pattern IPV4 = Pattern.compile("\\d{1,3}(\\.\\d{1,3}){3}");
    private static final Pattern HOST_NAME = Pattern.compile("(\\*\\.)?[A-Za-z0-9]([A-Za-z0-9-]*[A-Za-z0-9])?"
            + "(\\.[A-Za-z0-9]([A-Za-z0-9-]*[A-Za-z0-9])?)*\\.?");

    /** Where {@link #generate} wrote the PEM files. */
    public record PemFiles(Path certificate, Path key) {

        /** Reads them back. */
        public TlsMaterial load() throws TlsMaterialException {
            return TlsMaterial.load(certificate, key);
        }
    }

    private SelfSignedTls() {
    }

    /**
     * Generates a key and a certificate for {@code hostnamesAndIps} (the
     * first is also the subject's Common Name) and writes them to {@code
     * dir}/{@value #CERTIFICATE_FILE} and {@code dir}/{@value #KEY_FILE}
     * (PKCS#8, readable by its owner only), creating {@code dir} if needed.
     *
     * @throws TlsMaterialException with a one-line reason: no names, a name that is neither host nor IP, an unwritable directory
     */
    public static PemFiles generate(List<String> hostnamesAndIps, Path dir) throws TlsMaterialException {
        KeyPair keys = newKeyPair();
        X509Certificate certificate = certify(keys, hostnamesAndIps);
        Path cert = dir.resolve(CERTIFICATE_FILE);
        Path key = dir.resolve(KEY_FILE);
        try {
            Files.createDirectories(dir);
            writeAtomically(cert, pem("CERTIFICATE", certificate.getEncoded()), false);
            writeAtomically(key, pem("PRIVATE KEY", keys.getPrivate().getEncoded()), true);
        } catch (IOException | GeneralSecurityException e) {
            throw new TlsMaterialException("cannot write a certificate to " + dir + " (" + e.getMessage() + ")");
        }
        return new PemFiles(cert, key);
    }

    /** The same, kept in memory: for tests and for a process that needs no files. */
    public static TlsMaterial inMemory(List<String> hostnamesAndIps) throws TlsMaterialException {
        KeyPair keys = newKeyPair();
        return TlsMaterial.of(keys.getPrivate(), List.of(certify(keys, hostnamesAndIps)));
    }

    /** PEM text of one DER object, 64 characters a line as RFC 7468 §2 writes it. */
    static String pem(String label, byte[] der) {
        String body = Base64.getMimeEncoder(64, "\n".getBytes(StandardCharsets.US_ASCII)).encodeToString(der);
        return "-----BEGIN " + label + "-----\n" + body + "\n-----END " + label + "-----\n";
    }

    private static KeyPair newKeyPair() throws TlsMaterialException {
        try {
            KeyPairGenerator g = KeyPairGenerator.getInstance("EC");
            g.initialize(new ECGenParameterSpec("secp256r1"), new SecureRandom());
            return g.generateKeyPair();
        } catch (GeneralSecurityException e) {
            throw new TlsMaterialException("cannot generate an EC P-256 key: " + e.getMessage());
        }
    }

    private static X509Certificate certify(KeyPair keys, List<String> names) throws TlsMaterialException {
        Set<String> unique = new LinkedHashSet<>();
        for (String n : names) {
            String t = n == null ? "" : n.strip();
            if (t.startsWith("[") && t.endsWith("]")) {
                t = t.substring(1, t.length() - 1);
            }
            if (t.isEmpty()) {
                throw new TlsMaterialException("an empty host name for the certificate");
            }
            unique.add(t);
        }
        if (unique.isEmpty()) {
            throw new TlsMaterialException("a certificate needs at least one host name or IP address");
        }
        List<GeneralName> alt = new ArrayList<>();
        for (String n : unique) {
            alt.add(generalName(n));
        }
        String first = unique.iterator().next();
        Instant now = Instant.now();
        byte[] serial = new byte[16];
        new SecureRandom().nextBytes(serial);
        try {
            X509v3CertificateBuilder b = new JcaX509v3CertificateBuilder(
                    new X500NameBuilder(BCStyle.INSTANCE).addRDN(BCStyle.CN, first).addRDN(BCStyle.O, "p2psip").build(),
                    new BigInteger(1, serial),
                    // An hour back, so a peer whose clock is a little behind still accepts it.
                    Date.from(now.minus(Duration.ofHours(1))), Date.from(now.plus(VALIDITY)),
                    new X500NameBuilder(BCStyle.INSTANCE).addRDN(BCStyle.CN, first).addRDN(BCStyle.O, "p2psip").build(),
                    keys.getPublic());
            b.addExtension(Extension.subjectAlternativeName, false, new GeneralNames(alt.toArray(GeneralName[]::new)));
            b.addExtension(Extension.basicConstraints, true, new BasicConstraints(false));
            b.addExtension(Extension.keyUsage, true, new KeyUsage(KeyUsage.digitalSignature));
            b.addExtension(Extension.extendedKeyUsage, false, new ExtendedKeyUsage(
                    new KeyPurposeId[] {KeyPurposeId.id_kp_serverAuth, KeyPurposeId.id_kp_clientAuth}));
            return new JcaX509CertificateConverter().getCertificate(
                    b.build(new JcaContentSignerBuilder("SHA256withECDSA").build(keys.getPrivate())));
        } catch (CertIOException | OperatorCreationException | java.security.cert.CertificateException e) {
            throw new TlsMaterialException("cannot build a certificate: " + e.getMessage());
        }
    }

    private static GeneralName generalName(String name) throws TlsMaterialException {
        boolean ip = IPV4.matcher(name).matches() || name.indexOf(':') >= 0;
        if (ip) {
            for (String octet : name.indexOf(':') >= 0 ? new String[0] : name.split("\\.")) {
                if (Integer.parseInt(octet) > 255) {
                    // Not a literal, and getByName would look it up as a host name.
                    throw new TlsMaterialException("'" + name + "' is not an IP address");
                }
            }
            try {
                // A literal is parsed, never looked up.
                InetAddress.getByName(name);
            } catch (UnknownHostException e) {
                throw new TlsMaterialException("'" + name + "' is not an IP address");
            }
            return new GeneralName(GeneralName.iPAddress, name);
        }
        if (!HOST_NAME.matcher(name).matches() || name.length() > 253) {
            throw new TlsMaterialException("'" + name + "' is neither a host name nor an IP address");
        }
        return new GeneralName(GeneralName.dNSName, name.toLowerCase(Locale.ROOT));
    }

    /** Writes via a temporary file, so a reader never sees half a key. */
    private static void writeAtomically(Path target, String text, boolean secret) throws IOException {
        Path tmp = Files.createTempFile(target.getParent(), "." + target.getFileName(), ".tmp");
        try {
            if (secret && tmp.getFileSystem().supportedFileAttributeViews().contains("posix")) {
                Files.setPosixFilePermissions(tmp, PosixFilePermissions.fromString("rw-------"));
            }
            Files.writeString(tmp, text, StandardCharsets.US_ASCII);
            Files.move(tmp, target, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
        } finally {
            Files.deleteIfExists(tmp);
        }
    }
}
