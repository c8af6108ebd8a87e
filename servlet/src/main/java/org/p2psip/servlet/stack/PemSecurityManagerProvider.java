package org.p2psip.servlet.stack;

import java.security.GeneralSecurityException;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.ConcurrentHashMap;

import javax.net.ssl.KeyManager;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.TrustManager;

import org.p2psip.core.tls.TlsMaterial;

import gov.nist.core.net.SecurityManagerProvider;

/**
 * Hands the RI's TLS processor the node's certificate and key as loaded
 * from PEM ({@link TlsMaterial}) instead of a Java key store file on disk,
 * which is all the RI's own provider reads. Named by
 * {@code gov.nist.javax.sip.SECURITY_MANAGER_PROVIDER}; the RI instantiates
 * it by class name, so it finds its node's material by the stack name.
 */
public final class PemSecurityManagerProvider implements SecurityManagerProvider {

    private static final Map<String, TlsMaterial> BY_STACK = new ConcurrentHashMap<>();

    private KeyManager[] keyManagers;
    private TrustManager[] trustManagers;

    public PemSecurityManagerProvider() {
    }

    public static void register(String stackName, TlsMaterial material) {
        BY_STACK.put(stackName, material);
    }

    public static void unregister(String stackName) {
        BY_STACK.remove(stackName);
    }

    @Override
    public void init(Properties properties) throws GeneralSecurityException {
        TlsMaterial material = BY_STACK.get(properties.getProperty("javax.sip.STACK_NAME"));
        if (material == null) {
            throw new GeneralSecurityException("no TLS material registered for this stack");
        }
        KeyManagerFactory keys = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
        keys.init(material.keyStore(), material.keyStorePassword());
        keyManagers = keys.getKeyManagers();
        trustManagers = new TrustManager[] {material.trustManager()};
    }

    @Override
    public KeyManager[] getKeyManagers(boolean client) {
        return keyManagers;
    }

    @Override
    public TrustManager[] getTrustManagers(boolean client) {
        return trustManagers;
    }
}
