package org.p2psip.loadtest;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.p2psip.servlet.netns.NamespaceHosts;

/**
 * A node on its own host bound to every interface: with {@code --advertise}
 * its address, a UA on a second host registers and a UA on a third calls
 * it through the node; without, the node refuses to start in one line
 * (it would otherwise have written an address no other host reaches).
 */
@Timeout(180)
class AdvertiseAcrossHostsTest {

    @TempDir
    Path work;

    @Test
    void uasOnOtherHostsRegisterAndCallThroughAWildcardBoundNode() throws Exception {
        try (NamespaceHosts bed = NamespaceHosts.random(3)) {
            NamespaceHosts.Host nodeHost = bed.host(1);
            NamespaceHosts.Host calleeHost = bed.host(2);
            NamespaceHosts.Host callerHost = bed.host(3);

            try (NodeProcess refused = NodeProcess.startOn(nodeHost, "node", "--dht", "local", "--sip", "0.0.0.0:5062",
                    "--auth", "none")) {
                assertEquals(1, refused.awaitExit(Duration.ofSeconds(60)), String.join("\n", refused.output()));
                List<String> errors = refused.output().stream().filter(l -> l.startsWith("p2psip node: ")).toList();
                assertEquals(1, errors.size(), String.join("\n", refused.output()));
                assertTrue(errors.get(0).contains("--advertise"), errors.get(0));
            }

            String node = nodeHost.address() + ":5060";
            try (NodeProcess p = NodeProcess.startOn(nodeHost, "node", "--dht", "local", "--sip", "0.0.0.0:5060",
                    "--advertise", nodeHost.address(), "--auth", "none", "--domain", "p2psip.test")) {
                p.awaitOutput("listening on sip:" + node, Duration.ofSeconds(60));

                Sipp.Result registered = Sipp.registerOneOn(calleeHost, work, "callee", 5070, node);
                assertEquals(1, registered.successful(), registered.toString());

                Process uas = Sipp.startBackground(calleeHost, work, "-sn", "uas", "-i", calleeHost.address(),
                        "-p", "5070");
                try {
                    Sipp.Result calls = Sipp.run(callerHost, work, Duration.ofSeconds(60), "-sn", "uac", "-s", "callee",
                            "-m", "20", "-r", "10", "-i", callerHost.address(), "-p", "5080", node);
                    assertEquals(20, calls.successful(), calls.toString());
                    assertEquals(0, calls.failed(), calls.toString());
                } finally {
                    uas.destroy();
                    uas.waitFor(5, TimeUnit.SECONDS);
                }
            }
        }
    }
}
