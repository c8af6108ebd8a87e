package org.p2psip.servlet.node;

import java.util.List;
import java.util.Properties;
import java.util.concurrent.atomic.AtomicLong;

import org.p2psip.servlet.logging.Slf4jServerLogger;
import org.p2psip.servlet.sip.SelfAddress;
import org.p2psip.servlet.logging.Slf4jStackLogger;
import org.p2psip.servlet.stack.GuardedMessageProcessorFactory;
import org.p2psip.servlet.stack.PemSecurityManagerProvider;
import org.p2psip.servlet.stack.ScreeningParserFactory;

/**
 * The JAIN-SIP RI configuration of a front node, tuned for a proxy and
 * registrar under load: no dialogs (a proxy keeps none, RFC 3261 §16),
 * a reentrant listener on a pool of threads, no message logging, SLF4J
 * instead of log4j, and the screening parser that counts bad input.
 */
final class StackProperties {

    /** Above the largest message the node's own framing lets through, pipeline CRLFs included. */
    private static final int RI_MESSAGE_LIMIT = 128 * 1024;

    private static final AtomicLong SEQUENCE = new AtomicLong();

    /** TLS 1.3's suites, then TLS 1.2's forward-secret AEAD suites for EC and RSA certificates (RFC 9325 §4.2). */
    private static final List<String> TLS_CIPHER_SUITES = List.of(
            "TLS_AES_128_GCM_SHA256", "TLS_AES_256_GCM_SHA384", "TLS_CHACHA20_POLY1305_SHA256",
            "TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256", "TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384",
            "TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305_SHA256",
            "TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256", "TLS_ECDHE_RSA_WITH_AES_256_GCM_SHA384",
            "TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305_SHA256");

    private StackProperties() {
    }

    /** A stack name unique in this JVM, so several nodes can share one for tests. */
    static String uniqueStackName(SelfAddress self) {
        return "p2psip-" + self + "-" + SEQUENCE.incrementAndGet();
    }

    static Properties forNode(String stackName, int threads, boolean tls) {
        Properties p = new Properties();
        p.setProperty("javax.sip.STACK_NAME", stackName);
        // A proxy is transaction-stateful only; dialogs would cost memory and
        // make the stack answer in-dialog requests itself.
        p.setProperty("javax.sip.AUTOMATIC_DIALOG_SUPPORT", "off");
        p.setProperty("gov.nist.javax.sip.REENTRANT_LISTENER", "true");
        p.setProperty("gov.nist.javax.sip.THREAD_POOL_SIZE", Integer.toString(threads));
        // NIO keeps TCP to a selector instead of a thread per connection; the
        // factory is the RI's own except that TCP keeps the connections it
        // opens (the RI forgets them, and forwarding over TCP breaks).
        p.setProperty("gov.nist.javax.sip.MESSAGE_PROCESSOR_FACTORY", GuardedMessageProcessorFactory.class.getName());
        // A connect to a UAS blocks the thread forwarding to it: give up well
        // within the transaction's own timers (the RI's default is 10 s).
        p.setProperty(GuardedMessageProcessorFactory.CONNECTION_TIMEOUT, "5000");
        p.setProperty("gov.nist.javax.sip.CACHE_CLIENT_CONNECTIONS", "true");
        p.setProperty("gov.nist.javax.sip.MAX_SERVER_TRANSACTIONS", "200000");
        p.setProperty("gov.nist.javax.sip.MAX_CLIENT_TRANSACTIONS", "200000");
        // A completed non-INVITE server transaction lingers for Timer J
        // (64*T1 = 32 s on UDP, RFC 3261 §17.2.2) only to resend its final
        // response. By default it keeps the parsed request and response for
        // that time: about 5 KB of objects per REGISTER, a live set of over a
        // gigabyte at 10,000 REGISTER/s and young-collection pauses past
        // 100 ms. "Normal" keeps the encoded response bytes instead.
        p.setProperty("gov.nist.javax.sip.RELEASE_REFERENCES_STRATEGY", "Normal");
        // UDP is received by GuardedUdpProcessor into one reused buffer and
        // TCP framed by GuardedTcpChannel, both against the node's own limit;
        // the RI's limit only has to stay out of their way.
        p.setProperty("gov.nist.javax.sip.MAX_MESSAGE_SIZE", Integer.toString(RI_MESSAGE_LIMIT));
        p.setProperty("gov.nist.javax.sip.RECEIVE_UDP_BUFFER_SIZE", Integer.toString(4 << 20));
        p.setProperty("gov.nist.javax.sip.SEND_UDP_BUFFER_SIZE", Integer.toString(4 << 20));
        // Answer UDP requests at the port they came from (RFC 3581 behaviour
        // even without ;rport): clients behind NAT and load generators that
        // send from ephemeral ports get their responses.
        p.setProperty("gov.nist.javax.sip.ALWAYS_ADD_RPORT", "true");
        p.setProperty("gov.nist.javax.sip.DELIVER_TERMINATED_EVENT_FOR_ACK", "false");
        p.setProperty("gov.nist.javax.sip.DELIVER_TERMINATED_EVENT_FOR_NULL_DIALOG", "false");
        p.setProperty("gov.nist.javax.sip.LOG_MESSAGE_CONTENT", "false");
        p.setProperty("gov.nist.javax.sip.TRACE_LEVEL", "0");
        p.setProperty("gov.nist.javax.sip.STACK_LOGGER", Slf4jStackLogger.class.getName());
        p.setProperty("gov.nist.javax.sip.SERVER_LOGGER", Slf4jServerLogger.class.getName());
        p.setProperty("gov.nist.javax.sip.MESSAGE_PARSER_FACTORY", ScreeningParserFactory.class.getName());
        if (tls) {
            // The node's PEM certificate instead of a key store file.
            p.setProperty("gov.nist.javax.sip.SECURITY_MANAGER_PROVIDER", PemSecurityManagerProvider.class.getName());
            p.setProperty("gov.nist.javax.sip.TLS_CLIENT_PROTOCOLS", "TLSv1.3,TLSv1.2");
            // The RI's own list is RSA key exchange and 3DES from another era,
            // which shares nothing with an EC certificate or a current phone.
            p.setProperty("gov.nist.javax.sip.ENABLED_CIPHER_SUITES", String.join(",", TLS_CIPHER_SUITES));
            // Phones present self-signed certificates, if any, when the node
            // connects to them to deliver a request; like Kamailio's default
            // (verify_certificate = no) the node does not check them, and it
            // asks clients for none. Clients still check the node's.
            p.setProperty("gov.nist.javax.sip.TLS_CLIENT_AUTH_TYPE", "DisabledAll");
            p.setProperty("gov.nist.javax.sip.SSL_HANDSHAKE_TIMEOUT", "10000");
        }
        return p;
    }
}
