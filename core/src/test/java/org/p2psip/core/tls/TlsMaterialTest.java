package org.p2psip.core.tls;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.cert.X509Certificate;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;

import javax.net.ssl.SSLEngine;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class TlsMaterialTest {

    @TempDir
    Path dir;

    @Test
    void aSelfSignedCertificateNamesEveryHostAndAddressAndLoadsBack() throws Exception {
        SelfSignedTls.PemFiles files = SelfSignedTls.generate(List.of("sip.example.test", "127.0.0.1", "::1"), dir);

        assertEquals(dir.resolve("cert.pem"), files.certificate());
        assertTrue(Files.readString(files.key()).startsWith("-----BEGIN PRIVATE KEY-----\n"));
        assertEquals("rw-------", PosixFilePermissions.toString(Files.getPosixFilePermissions(files.key())));
        TlsMaterial m = files.load();
        X509Certificate leaf = m.certificateChain().get(0);
        Set<String> names = leaf.getSubjectAlternativeNames().stream()
                .map(n -> n.get(0) + "=" + n.get(1)).collect(Collectors.toSet());
        assertEquals(Set.of("2=sip.example.test", "7=127.0.0.1", "7=0:0:0:0:0:0:0:1"), names);
        assertTrue(leaf.getSubjectX500Principal().getName().contains("CN=sip.example.test"));
        leaf.checkValidity();
        m.trustManager().checkServerTrusted(m.certificateChainArray(), "ECDHE_ECDSA");
        assertEquals(TlsMaterial.ALIAS, m.keyStore().aliases().nextElement());
        assertTrue(m.keyStore().isKeyEntry(TlsMaterial.ALIAS));
    }

    @Test
    void enginesOfferTls12AndTls13Only() throws Exception {
        TlsMaterial m = SelfSignedTls.inMemory(List.of("localhost"));

        for (SSLEngine e : List.of(m.serverEngine(), m.clientEngine("localhost", 5061))) {
            Set<String> offered = Set.of(e.getEnabledProtocols());
            assertTrue(offered.contains("TLSv1.2") && offered.contains("TLSv1.3"), offered.toString());
            assertEquals(2, offered.size(), offered.toString());
        }
    }

    @Test
    void rsaPkcs1AndEcSec1KeysFromOpensslLoad() throws Exception {
        Path rsaKey = dir.resolve("rsa.pem");
        Path rsaCert = dir.resolve("rsa-cert.pem");
        openssl("genrsa", "-traditional", "-out", rsaKey.toString(), "2048");
        openssl("req", "-new", "-x509", "-key", rsaKey.toString(), "-out", rsaCert.toString(), "-subj", "/CN=rsa",
                "-days", "1");
        assertTrue(Files.readString(rsaKey).startsWith("-----BEGIN RSA PRIVATE KEY-----"));
        assertEquals("RSA", TlsMaterial.load(rsaCert, rsaKey).privateKey().getAlgorithm());

        Path ecKey = dir.resolve("ec.pem");
        Path ecCert = dir.resolve("ec-cert.pem");
        openssl("ecparam", "-name", "prime256v1", "-genkey", "-noout", "-out", ecKey.toString());
        openssl("req", "-new", "-x509", "-key", ecKey.toString(), "-out", ecCert.toString(), "-subj", "/CN=ec",
                "-days", "1");
        assertTrue(Files.readString(ecKey).startsWith("-----BEGIN EC PRIVATE KEY-----"));
        assertEquals("EC", TlsMaterial.load(ecCert, ecKey).privateKey().getAlgorithm());
    }

    @Test
    void aKeyOfAnotherCertificateIsRefused() throws Exception {
        SelfSignedTls.PemFiles one = SelfSignedTls.generate(List.of("one"), dir.resolve("one"));
        SelfSignedTls.PemFiles two = SelfSignedTls.generate(List.of("two"), dir.resolve("two"));

        TlsMaterialException e = assertThrows(TlsMaterialException.class,
                () -> TlsMaterial.load(one.certificate(), two.key()));
        assertTrue(e.getMessage().contains("does not belong to the certificate"), e.getMessage());
    }

    @Test
    void missingFilesGarbageAndEncryptedKeysAreOneLineErrors() throws Exception {
        SelfSignedTls.PemFiles ok = SelfSignedTls.generate(List.of("ok"), dir);
        Path garbage = Files.writeString(dir.resolve("garbage.pem"), "not a pem\n");
        Path encrypted = dir.resolve("encrypted.pem");
        openssl("pkcs8", "-topk8", "-in", ok.key().toString(), "-out", encrypted.toString(), "-passout", "pass:x");

        for (Path[] pair : new Path[][] {
            {dir.resolve("absent.pem"), ok.key()},
            {ok.certificate(), dir.resolve("absent.pem")},
            {garbage, ok.key()},
            {ok.certificate(), garbage},
            {ok.certificate(), encrypted},
        }) {
            TlsMaterialException e = assertThrows(TlsMaterialException.class, () -> TlsMaterial.load(pair[0], pair[1]));
            assertFalse(e.getMessage().contains("\n"), e.getMessage());
        }
        assertTrue(assertThrows(TlsMaterialException.class, () -> TlsMaterial.load(ok.certificate(), encrypted))
                .getMessage().contains("encrypted"));
    }

    @Test
    void namesThatAreNeitherHostsNorAddressesAreRefused() {
        assertThrows(TlsMaterialException.class, () -> SelfSignedTls.inMemory(List.of()));
        assertThrows(TlsMaterialException.class, () -> SelfSignedTls.inMemory(List.of("bad host")));
        assertThrows(TlsMaterialException.class, () -> SelfSignedTls.inMemory(List.of("300.1.1.1")));
    }

    private static void openssl(String... args) throws Exception {
        String[] command = new String[args.length + 1];
        command[0] = "openssl";
        System.arraycopy(args, 0, command, 1, args.length);
        Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
        p.getOutputStream().close();
        String output = new String(p.getInputStream().readAllBytes());
        assertTrue(p.waitFor(30, TimeUnit.SECONDS), "openssl did not finish");
        assertEquals(0, p.exitValue(), String.join(" ", command) + ": " + output);
    }
}
