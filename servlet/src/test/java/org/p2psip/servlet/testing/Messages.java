package org.p2psip.servlet.testing;

import java.text.ParseException;
import java.util.Optional;

import javax.sip.address.AddressFactory;
import javax.sip.header.HeaderFactory;
import javax.sip.message.MessageFactory;
import javax.sip.message.Request;

import org.p2psip.core.metrics.SipTraffic;
import org.p2psip.core.testing.RequestText;
import org.p2psip.servlet.logging.JainSipLogging;
import org.p2psip.servlet.sip.SelfAddress;
import org.p2psip.servlet.sip.SipEndpoint;

import gov.nist.javax.sip.address.AddressFactoryImpl;
import gov.nist.javax.sip.header.HeaderFactoryImpl;
import gov.nist.javax.sip.message.MessageFactoryImpl;

/** JAIN-SIP factories without a stack or sockets, for unit tests. */
public final class Messages {

    static {
        JainSipLogging.install();
    }

    public static final MessageFactory MESSAGES = new MessageFactoryImpl();
    public static final HeaderFactory HEADERS = new HeaderFactoryImpl();
    public static final AddressFactory ADDRESSES = new AddressFactoryImpl();

    private Messages() {
    }

    /** Parses request text with JAIN-SIP's own message factory. */
    public static Request request(RequestText text) throws ParseException {
        return MESSAGES.createRequest(text.text());
    }

    /** An endpoint with no provider, enough to build responses. */
    public static SipEndpoint endpoint() {
        return new SipEndpoint(null, MESSAGES, HEADERS, ADDRESSES, new SelfAddress("127.0.0.1", 5060),
                new SipTraffic(), Optional.empty());
    }
}
