package org.p2psip.servlet.stack;

import javax.sip.SipStack;

import gov.nist.javax.sip.parser.MessageParser;
import gov.nist.javax.sip.parser.MessageParserFactory;
import gov.nist.javax.sip.parser.StringMsgParserFactory;
import gov.nist.javax.sip.stack.SIPTransactionStack;

/**
 * The {@code gov.nist.javax.sip.MESSAGE_PARSER_FACTORY} of a front node:
 * the stock parser wrapped in a {@link ScreeningParser} that counts and
 * screens malformed input. Instantiated by JAIN-SIP by class name.
 */
public final class ScreeningParserFactory implements MessageParserFactory {

    private final MessageParserFactory stock = new StringMsgParserFactory();

    public ScreeningParserFactory() {
    }

    @Override
    public MessageParser createMessageParser(SIPTransactionStack stack) {
        String name = stack instanceof SipStack s ? s.getStackName() : null;
        return new ScreeningParser(stock.createMessageParser(stack), EdgeGuards.of(name));
    }
}
