package org.p2psip.servlet.proxy;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;

import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.BiConsumer;

import javax.sip.ServerTransaction;
import javax.sip.SipProvider;
import javax.sip.header.RetryAfterHeader;
import javax.sip.message.Request;
import javax.sip.message.Response;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.p2psip.core.auth.DialogTokens;
import org.p2psip.core.dht.Dht;
import org.p2psip.core.dht.DhtConfig;
import org.p2psip.core.guard.AdaptiveConcurrencyLimit;
import org.p2psip.core.location.LocationService;
import org.p2psip.core.location.RegistrarPolicy;
import org.p2psip.core.location.ServedDomains;
import org.p2psip.core.metrics.SipTraffic;
import org.p2psip.core.net.HostPort;
import org.p2psip.core.testing.RequestText;
import org.p2psip.servlet.accounting.AccountingRecorder;
import org.p2psip.servlet.sip.DhtAdmission;
import org.p2psip.servlet.sip.SelfAddress;
import org.p2psip.servlet.sip.SipEndpoint;
import org.p2psip.servlet.testing.StalledDhtProvider;

import gov.nist.javax.sip.address.AddressFactoryImpl;
import gov.nist.javax.sip.header.HeaderFactoryImpl;
import gov.nist.javax.sip.message.MessageFactoryImpl;

/**
 * The proxy's DHT work waits only within the node's admission: with one
 * lookup already waiting on a DHT that does not answer and a limit of one,
 * a new INVITE is answered 503 with Retry-After at once, while a request
 * inside a dialog is never refused.
 */
class ProxyDhtAdmissionTest {

    private static final HostPort SELF = new HostPort("127.0.0.1", 5060);
    private static final Duration RETRY_AFTER = Duration.ofSeconds(9);

    private final Dht stalled = new StalledDhtProvider().start(DhtConfig.standalone(SELF, Clock.systemUTC())).join();
    private final MessageFactoryImpl messages = new MessageFactoryImpl();
    private final DhtAdmission admission = new DhtAdmission(new AdaptiveConcurrencyLimit(
            new AdaptiveConcurrencyLimit.Settings(1, 1, 1, Duration.ofMillis(200), 0.9)), RETRY_AFTER);
    private final Proxy proxy;

    ProxyDhtAdmissionTest() {
        SipProvider provider = fake(SipProvider.class, (method, args) -> { });
        SipEndpoint sip = new SipEndpoint(provider, messages, new HeaderFactoryImpl(), new AddressFactoryImpl(),
                SelfAddress.of(SELF), new SipTraffic(), Optional.empty());
        ServedDomains domains = ServedDomains.of("example.com", SELF);
        proxy = new Proxy(sip, new LocationService(stalled, RegistrarPolicy.DEFAULT, Clock.systemUTC()),
                new ProxyTrust(domains, Optional.empty(), new DialogTokens(new byte[32]), 4, 2),
                new RecordRoutes(SelfAddress.of(SELF), Optional.empty(), false), Duration.ofSeconds(30),
                Runnable::run, admission, AccountingRecorder.OFF);
    }

    @AfterEach
    void closeDht() {
        stalled.close();
    }

    /** An implementation of {@code type} that tells {@code calls} of each call and answers the type's zero. */
    private static <T> T fake(Class<T> type, BiConsumer<String, Object[]> calls) {
        return type.cast(java.lang.reflect.Proxy.newProxyInstance(type.getClassLoader(), new Class<?>[] {type},
                (self, method, args) -> switch (method.getName()) {
                    case "hashCode" -> System.identityHashCode(self);
                    case "equals" -> self == args[0];
                    case "toString" -> type.getSimpleName();
                    default -> {
                        calls.accept(method.getName(), args);
                        yield zero(method.getReturnType());
                    }
                }));
    }

    private static Object zero(Class<?> type) {
        if (type == boolean.class) {
            return false;
        }
        if (type == int.class) {
            return 0;
        }
        if (type == long.class) {
            return 0L;
        }
        return null;
    }

    /** A server transaction that keeps what is sent through it. */
    private static ServerTransaction recording(List<Response> sent) {
        return fake(ServerTransaction.class, (method, args) -> {
            if (method.equals("sendResponse")) {
                sent.add((Response) args[0]);
            }
        });
    }

    private Request request(String method, String callee, String toTag) throws Exception {
        String to = "sip:" + callee + "@example.com";
        RequestText text = RequestText.standard(method, to, "192.0.2.7:5060", "sip:carol@example.org", to,
                "adm-" + UUID.randomUUID(), 1).with("Contact: <sip:carol@192.0.2.7:5060>");
        if (toTag != null) {
            text.replace("To:", "To: <" + to + ">;tag=" + toTag);
        }
        return messages.createRequest(text.text());
    }

    private static List<Integer> statuses(List<Response> sent) {
        return sent.stream().map(Response::getStatusCode).toList();
    }

    @Test
    void anInviteBeyondTheLimitIsAnswered503WithRetryAfterAtOnce() throws Exception {
        List<Response> first = new CopyOnWriteArrayList<>();
        proxy.forward(recording(first), request(Request.INVITE, "bob", null));
        assertEquals(List.of(100), statuses(first), "the first lookup waits on the DHT");

        List<Response> second = new CopyOnWriteArrayList<>();
        proxy.forward(recording(second), request(Request.INVITE, "dave", null));

        assertEquals(List.of(100, 503), statuses(second));
        RetryAfterHeader retryAfter = (RetryAfterHeader) second.get(1).getHeader(RetryAfterHeader.NAME);
        assertNotNull(retryAfter, "no Retry-After");
        assertEquals(RETRY_AFTER.toSeconds(), retryAfter.getRetryAfter());
        assertEquals(1, admission.refused());
    }

    @Test
    void anOutOfDialogMessageBeyondTheLimitIsRefusedToo() throws Exception {
        proxy.forward(recording(new CopyOnWriteArrayList<>()), request(Request.INVITE, "bob", null));

        List<Response> message = new CopyOnWriteArrayList<>();
        proxy.forward(recording(message), request(Request.MESSAGE, "dave", null));

        assertEquals(List.of(503), statuses(message));
    }

    @Test
    void aRequestInsideADialogIsNeverRefused() throws Exception {
        proxy.forward(recording(new CopyOnWriteArrayList<>()), request(Request.INVITE, "bob", null));

        List<Response> bye = new CopyOnWriteArrayList<>();
        proxy.forward(recording(bye), request(Request.BYE, "dave", "dlg-1"));

        assertEquals(List.of(), statuses(bye), "the BYE's lookup waits on the DHT like any admitted work");
        assertEquals(0, admission.refused());
    }
}
