package org.p2psip.loadtest.jmh;

import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.concurrent.TimeUnit;

import javax.sip.message.Request;

import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;
import org.p2psip.core.location.BindingCodec;
import org.p2psip.core.location.BindingSet;
import org.p2psip.core.location.RegisterOutcome;
import org.p2psip.core.location.RegisterRequest;
import org.p2psip.core.location.ServedDomains;
import org.p2psip.core.location.RegistrarPolicy;
import org.p2psip.core.location.RegistrarRules;
import org.p2psip.core.net.HostPort;
import org.p2psip.servlet.registrar.RegisterTranslation;

import gov.nist.javax.sip.parser.StringMsgParser;

/**
 * What a node spends on one REGISTER outside the network and the DHT:
 * JAIN-SIP's parse of the bytes, the translation into the registrar's
 * request, the RFC 3261 §10.3 rules against the stored set, and the
 * stored value's decode and encode. Each stage alone and all together.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(1)
public class RegisterHandlingBench {

    private static final HostPort SOURCE = new HostPort("192.0.2.10", 5060);

    private static final ServedDomains DOMAINS = ServedDomains.of("bench.example.com");

    private byte[] wire;
    private Request parsed;
    private RegisterRequest request;
    private byte[] stored;
    private Instant now;

    @Setup
    public void setUp() throws Exception {
        wire = ("REGISTER sip:bench.example.com SIP/2.0\r\n"
                + "Via: SIP/2.0/UDP 192.0.2.10:5060;branch=z9hG4bK-bench-1;rport\r\n"
                + "Max-Forwards: 70\r\n"
                + "From: <sip:alice@bench.example.com>;tag=a73kszlfl\r\n"
                + "To: <sip:alice@bench.example.com>\r\n"
                + "Call-ID: 1j9FpLxk3uxtm8tn@192.0.2.10\r\n"
                + "CSeq: 2 REGISTER\r\n"
                + "Contact: <sip:alice@192.0.2.10:5060;transport=udp>;expires=3600\r\n"
                + "Expires: 3600\r\n"
                + "User-Agent: bench\r\n"
                + "Content-Length: 0\r\n\r\n").getBytes(StandardCharsets.UTF_8);
        parsed = parse();
        request = RegisterTranslation.translate(parsed, SOURCE, DOMAINS);
        now = Instant.now();
        // The AOR already has this contact (an earlier CSeq) and a second device: a refresh, the common case.
        RegisterRequest first = new RegisterRequest(request.aor(), request.contacts(), request.expires(),
                request.callId(), 1, request.path(), SOURCE, request.transport());
        BindingSet one = accepted(RegistrarRules.apply(first, BindingSet.EMPTY, RegistrarPolicy.DEFAULT, now));
        RegisterRequest other = new RegisterRequest(request.aor(),
                java.util.List.of(org.p2psip.core.location.ContactSpec.of("sip:alice@198.51.100.7:5062")),
                request.expires(), "other-device@198.51.100.7", 1, java.util.List.of(), SOURCE, "UDP");
        stored = BindingCodec.encode(accepted(RegistrarRules.apply(other, one, RegistrarPolicy.DEFAULT, now)));
    }

    private Request parse() throws Exception {
        // A parser per message, as the stack uses one per message processor; its setup is part of the cost.
        return (Request) new StringMsgParser().parseSIPMessage(wire, true, false, null);
    }

    private static BindingSet accepted(RegisterOutcome o) {
        if (o instanceof RegisterOutcome.Accepted a) {
            return a.bindings();
        }
        throw new IllegalStateException("rejected: " + o);
    }

    /** JAIN-SIP RI parses the datagram. */
    @Benchmark
    public Object jainSipParse() throws Exception {
        return parse();
    }

    /** The parsed message becomes the registrar's request. */
    @Benchmark
    public RegisterRequest translate() throws Exception {
        return RegisterTranslation.translate(parsed, SOURCE, DOMAINS);
    }

    /** The §10.3 rules applied to the decoded stored set. */
    @Benchmark
    public RegisterOutcome rulesApply() {
        return RegistrarRules.apply(request, BindingCodec.decode(stored), RegistrarPolicy.DEFAULT, now);
    }

    /** The stored value's round trip: decode what the DHT returned, encode what goes back. */
    @Benchmark
    public byte[] codecRoundTrip() {
        return BindingCodec.encode(BindingCodec.decode(stored));
    }

    /** Everything a node does with a REGISTER besides I/O: parse, translate, decode, apply, encode. */
    @Benchmark
    public byte[] parseAndHandle() throws Exception {
        RegisterRequest r = RegisterTranslation.translate(parse(), SOURCE, DOMAINS);
        return BindingCodec.encode(accepted(RegistrarRules.apply(r, BindingCodec.decode(stored),
                RegistrarPolicy.DEFAULT, now)));
    }
}
