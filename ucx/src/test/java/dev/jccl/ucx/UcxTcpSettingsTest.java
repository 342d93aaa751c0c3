package dev.jccl.ucx;

import static org.junit.jupiter.api.Assertions.*;

import dev.jccl.Config;
import dev.jccl.conformance.ProcessRanks;
import dev.jccl.debug.Log;
import dev.jccl.transport.NetPlugin;
import dev.jccl.transport.NetTransport;
import java.io.IOException;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The settings Jccl gives UCX where it runs over tcp reach UCX's tcp transport, in a fresh JVM each: a key UCX does not
 * know is ignored with no more than a warning, so only UCX's own debug output shows whether one took effect. This
 * machine has no RDMA port, so the plugin chooses tcp over loopback.
 */
@Timeout(120)
class UcxTcpSettingsTest {
    /** UCX's debug line for the tcp transport's pool of receive buffers, each twice the largest fragment. */
    private static final Pattern RX_POOL = Pattern.compile("uct_tcp_iface_rx_buf_mp: .*elemsize (\\d+)");

    @Test
    void eagerFragmentsAre512KiBUnlessTheUserSetTheirSize() throws Exception {
        String ours = openInChild(Map.of());
        assertFalse(ours.contains("invalid configuration"), "UCX ignored a setting: " + ours);
        assertEquals(2 * 512 * 1024, receiveBufferBytes(ours) & ~0xffff, ours);

        String users = openInChild(Map.of("UCX_TCP_RX_SEG_SIZE", "128k"));
        assertEquals(2 * 128 * 1024, receiveBufferBytes(users) & ~0xffff, users);
    }

    /** The size of UCX's receive buffers, from its debug output (a few bytes of header on top of the fragments). */
    private static long receiveBufferBytes(String output) {
        Matcher m = RX_POOL.matcher(output);
        assertTrue(m.find(), "no tcp receive pool in UCX's debug output: " + output);
        return Long.parseLong(m.group(1));
    }

    /**
     * Runs {@link OpenOnce} with UCX's debug output on, the variables that would decide the result removed, and
     * {@code env} added; everything it printed.
     */
    private static String openInChild(Map<String, String> env) throws IOException, InterruptedException {
        Map<String, String> childEnv = new HashMap<>();
        childEnv.put("UCX_LOG_LEVEL", "debug");
        childEnv.put("UCX_TCP_RX_SEG_SIZE", ProcessRanks.UNSET);
        childEnv.put("UCX_NET_DEVICES", ProcessRanks.UNSET);
        childEnv.putAll(env);
        List<ProcessRanks.Outcome> outcomes =
                ProcessRanks.run(1, OpenOnce.class, List.of(), childEnv, Duration.ofSeconds(60));
        assertTrue(outcomes.get(0).passed(), ProcessRanks.report(outcomes));
        return outcomes.get(0).output();
    }

    /** Opens the UCX plugin on loopback, as a rank would, and closes it. */
    public static final class OpenOnce {
        public static void main(String[] args) throws Exception {
            Config config = Config.builder().build();
            NetPlugin.Settings settings = new NetPlugin.Settings(1, 1 << 20, "lo", null);
            try (NetTransport t = new UcxPlugin().open(settings, new Log(config, 0))) {
                System.out.println("opened: " + t.describe());
            }
        }
    }
}
