package org.p2psip.servlet.stack;

import java.io.IOException;
import java.net.InetAddress;

import gov.nist.javax.sip.SipStackImpl;
import gov.nist.javax.sip.stack.MessageProcessor;
import gov.nist.javax.sip.stack.NioMessageProcessorFactory;
import gov.nist.javax.sip.stack.NioTcpMessageProcessor;
import gov.nist.javax.sip.stack.SIPTransactionStack;

/**
 * The RI's NIO message processors, except that TCP keeps the connections it
 * opens (see {@link ConnectionCache} for the RI defect this works around).
 * Named by {@code gov.nist.javax.sip.MESSAGE_PROCESSOR_FACTORY}; the RI
 * instantiates it through its no-argument constructor.
 */
public final class CachingNioMessageProcessorFactory extends NioMessageProcessorFactory {

    /** The stack property the RI reads its connect timeout from, and its default there. */
    public static final String CONNECTION_TIMEOUT = "gov.nist.javax.sip.CONNECTION_TIMEOUT";
    private static final int DEFAULT_CONNECT_TIMEOUT_MILLIS = 10_000;

    @Override
    public MessageProcessor createMessageProcessor(SIPTransactionStack stack, InetAddress address, int port,
                                                   String transport) throws IOException {
        if ("TCP".equalsIgnoreCase(transport)) {
            return new CachingTcpProcessor(address, stack, port, connectTimeout(stack));
        }
        return super.createMessageProcessor(stack, address, port, transport);
    }

    private static int connectTimeout(SIPTransactionStack stack) {
        if (stack instanceof SipStackImpl impl) {
            String value = impl.getConfigurationProperties().getProperty(CONNECTION_TIMEOUT);
            if (value != null) {
                try {
                    return Integer.parseInt(value.trim());
                } catch (NumberFormatException e) {
                    // the RI rejects it at start-up already; keep its default
                }
            }
        }
        return DEFAULT_CONNECT_TIMEOUT_MILLIS;
    }

    /** The RI's NIO TCP processor with its connection table replaced before it starts. */
    private static final class CachingTcpProcessor extends NioTcpMessageProcessor {
        CachingTcpProcessor(InetAddress address, SIPTransactionStack stack, int port, int connectTimeoutMillis) {
            super(address, stack, port);
            // The table the superclass made is dropped unused: nothing has
            // been connected or accepted yet, the selector starts later.
            nioHandler = new ConnectionCache(stack, this, connectTimeoutMillis);
        }
    }
}
