package org.p2psip.loadtest.jmh;

import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.OptionalLong;
import java.util.concurrent.TimeUnit;

import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;
import org.p2psip.core.location.AddressOfRecord;
import org.p2psip.core.location.BindingCodec;
import org.p2psip.core.location.BindingSet;
import org.p2psip.core.location.ContactSpec;
import org.p2psip.core.location.RegisterOutcome;
import org.p2psip.core.location.RegisterRequest;
import org.p2psip.core.location.RegistrarPolicy;
import org.p2psip.core.location.RegistrarRules;
import org.p2psip.core.net.HostPort;

/**
 * Binding-set updates against sets of {@code size} bindings: a refresh
 * of one existing contact, a new contact added, and the merge a node does
 * when its conditional write lost a race — decode the winner's value,
 * re-apply its own update on top, encode again.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(1)
public class BindingSetBench {

    private static final HostPort SOURCE = new HostPort("192.0.2.10", 5060);
    private static final RegistrarPolicy POLICY = new RegistrarPolicy(60, 3600, 86_400, 64);

    @Param({"1", "5", "20"})
    public int size;

    private final AddressOfRecord aor = AddressOfRecord.parse("sip:bob@bench.example.com");
    private BindingSet set;
    private byte[] winner;
    private RegisterRequest refresh;
    private RegisterRequest add;
    private Instant now;

    @Setup
    public void setUp() {
        now = Instant.now();
        BindingSet s = BindingSet.EMPTY;
        for (int i = 0; i < size; i++) {
            s = accepted(RegistrarRules.apply(register("device-" + i, 1, "sip:bob@198.51.100." + (i + 1) + ":5060"),
                    s, POLICY, now));
        }
        set = s;
        refresh = register("device-0", 2, "sip:bob@198.51.100.1:5060");
        add = register("device-new", 1, "sip:bob@203.0.113.99:5070");
        // The value another node wrote first: the same set with one more device.
        winner = BindingCodec.encode(accepted(RegistrarRules.apply(register("device-racer", 1,
                "sip:bob@203.0.113.50:5080"), set, POLICY, now)));
    }

    private RegisterRequest register(String callId, long cseq, String contact) {
        List<ContactSpec> contacts = new ArrayList<>(List.of(ContactSpec.of(contact)));
        return new RegisterRequest(aor, contacts, OptionalLong.of(3600), callId, cseq, List.of(), SOURCE, "UDP");
    }

    private static BindingSet accepted(RegisterOutcome o) {
        if (o instanceof RegisterOutcome.Accepted a) {
            return a.bindings();
        }
        throw new IllegalStateException("rejected: " + o);
    }

    /** Refresh an existing binding (same Call-ID, higher CSeq). */
    @Benchmark
    public RegisterOutcome refreshOne() {
        return RegistrarRules.apply(refresh, set, POLICY, now);
    }

    /** Add a binding for a new device. */
    @Benchmark
    public RegisterOutcome addOne() {
        return RegistrarRules.apply(add, set, POLICY, now);
    }

    /** After a lost conditional write: decode the winner's set, apply the update on top of it, encode. */
    @Benchmark
    public byte[] mergeAfterLostRace() {
        return BindingCodec.encode(accepted(RegistrarRules.apply(add, BindingCodec.decode(winner), POLICY, now)));
    }
}
