package org.p2psip.servlet.logging;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.net.SocketException;
import java.nio.charset.StandardCharsets;

import org.junit.jupiter.api.Test;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.joran.JoranConfigurator;
import ch.qos.logback.classic.spi.LoggingEvent;
import ch.qos.logback.classic.util.LogbackMDCAdapter;

class OneLineCauseConverterTest {

    private final OneLineCauseConverter converter = new OneLineCauseConverter();

    private String convert(Throwable thrown) {
        LoggingEvent event = new LoggingEvent(getClass().getName(), new LoggerContext().getLogger("x"), Level.WARN,
                "message", thrown, null);
        return converter.convert(event);
    }

    @Test
    void anEventWithoutAnExceptionGetsNothingAdded() {
        assertEquals("", convert(null));
    }

    @Test
    void anExceptionAndItsCausesAreNamedInOrderOnOneLine() {
        Throwable thrown = new IllegalStateException("closed", new IOException("broken pipe"));
        assertEquals(" (java.lang.IllegalStateException: closed; caused by java.io.IOException: broken pipe)",
                convert(thrown));
    }

    @Test
    void aMessageWithLineBreaksOrEscapesStaysOnOneLine() {
        String line = convert(new SocketException("reset\r\nFAKE 10:00 ERROR forged\u001b[31m"));
        assertEquals(" (java.net.SocketException: reset FAKE 10:00 ERROR forged [31m)", line);
    }

    @Test
    void aLongChainIsCutAfterSoManyCauses() {
        Throwable thrown = new RuntimeException("0");
        for (int i = 1; i < 10; i++) {
            thrown = new RuntimeException(Integer.toString(i), thrown);
        }
        String line = convert(thrown);
        assertEquals(OneLineCauseConverter.CAUSES, line.split("caused by", -1).length);
    }

    @Test
    void aHazelcastWarningWithAStackIsPrintedAsOneLineNamingTheFailure() throws Exception {
        LoggerContext context = new LoggerContext();
        context.setMDCAdapter(new LogbackMDCAdapter());
        JoranConfigurator configurator = new JoranConfigurator();
        configurator.setContext(context);
        configurator.doConfigure(getClass().getResource("/logback.xml"));
        ByteArrayOutputStream captured = new ByteArrayOutputStream();
        PrintStream stderr = System.err;
        System.setErr(new PrintStream(captured, true, StandardCharsets.UTF_8));
        try {
            Logger hazelcast = context.getLogger("com.hazelcast.internal.server.tcp.TcpServerConnection");
            hazelcast.warn("Connection[id=1] closed. Reason: Exception in Connection[id=1]",
                    new SocketException("Connection reset"));
            hazelcast.info("Members {size:2} narrated at INFO");
            context.getLogger("org.p2psip.node").warn("our own failure", new IllegalStateException("bug"));
        } finally {
            System.setErr(stderr);
            context.stop();
        }
        String[] lines = captured.toString(StandardCharsets.UTF_8).split("\n");
        assertTrue(lines[0].endsWith("closed. Reason: Exception in Connection[id=1] "
                + "(java.net.SocketException: Connection reset)"), lines[0]);
        assertTrue(lines[1].contains("our own failure"), "no INFO from Hazelcast, and nothing more of its warning: "
                + lines[1]);
        assertTrue(lines.length > 3 && lines[3].contains("\tat "), "the node's own exceptions keep their stack");
    }
}
