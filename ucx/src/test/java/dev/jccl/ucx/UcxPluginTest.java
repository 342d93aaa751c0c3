package dev.jccl.ucx;

import static org.junit.jupiter.api.Assertions.*;

import dev.jccl.transport.NetPluginException;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(30)
class UcxPluginTest {
    private static final List<String> PORTS = List.of("mlx5_0:1", "mlx5_1:1", "mlx5_1:2", "mlx5_10:1");

    @Test
    void ibHcaFollowsNcclsSyntax() {
        assertEquals(PORTS, UcxPlugin.select(PORTS, null));
        assertEquals(
                List.of("mlx5_1:1", "mlx5_1:2", "mlx5_10:1"), UcxPlugin.select(PORTS, "mlx5_1"), "names are prefixes");
        assertEquals(List.of("mlx5_1:1", "mlx5_1:2"), UcxPlugin.select(PORTS, "=mlx5_1"), "= makes them exact");
        assertEquals(List.of("mlx5_1:2"), UcxPlugin.select(PORTS, "=mlx5_1:2"), "a port narrows it");
        assertEquals(List.of("mlx5_0:1", "mlx5_10:1"), UcxPlugin.select(PORTS, "^=mlx5_1"), "^ excludes");
    }

    @Test
    void withoutAnRdmaPortMessagesGoEagerlyInLargeFragmentsUnlessTheUserSaysOtherwise() {
        Map<String, String> none = Map.of();
        assertEquals(
                Map.of("RNDV_THRESH", "inf", "RX_SEG_SIZE", "512k"),
                UcxPlugin.overTcp(true, none::get),
                "tcp only: no rendezvous, 512 KiB fragments");
        assertEquals(
                Map.of("RNDV_THRESH", "inf", "RX_SEG_SIZE", "512k"),
                UcxPlugin.overTcp(true, Map.of("UCX_RNDV_THRESH", " ")::get),
                "a blank variable is unset");
        assertEquals(
                Map.of("RX_SEG_SIZE", "512k"),
                UcxPlugin.overTcp(true, Map.of("UCX_RNDV_THRESH", "8k")::get),
                "UCX_RNDV_THRESH set by the user wins");
        assertEquals(
                Map.of("RNDV_THRESH", "inf"),
                UcxPlugin.overTcp(true, Map.of("UCX_TCP_RX_SEG_SIZE", "64k")::get),
                "UCX_TCP_RX_SEG_SIZE set by the user wins");
        assertEquals(none, UcxPlugin.overTcp(false, none::get), "an RDMA port keeps UCX's defaults");
        assertEquals(
                "UCX_RNDV_THRESH=inf, UCX_TCP_RX_SEG_SIZE=512k",
                UcxPlugin.describe(UcxPlugin.overTcp(true, none::get)),
                "the debug line names the variables a user would set");
    }

    @Test
    void theUcxHereIsFoundAndRecentEnough() throws NetPluginException {
        String probe = new UcxPlugin().probe();
        assertTrue(probe.matches("UCX 1\\.\\d+\\.\\d+ \\(libucp\\.so\\.0\\), JUCX 1\\.12\\.1, .*"), probe);
        UcxLibrary.Version v = UcxLibrary.version();
        assertTrue(v.major() > 1 || v.minor() >= UcxLibrary.MIN_MINOR, v.toString());
    }

    /**
     * Once UCX is loaded, the JVM must still own SIGSEGV: compiled code turns null dereferences into SIGSEGVs that the
     * JVM makes NullPointerExceptions of. With UCX's handler in front, the first one aborts the process (and this test
     * JVM with it).
     */
    @Test
    void withUcxLoadedTheJvmStillTurnsSegvIntoNullPointerExceptions() throws Throwable {
        new UcxPlugin().probe();
        var linker = java.lang.foreign.Linker.nativeLinker();
        var getenv = linker.downcallHandle(
                linker.defaultLookup().find("getenv").orElseThrow(),
                java.lang.foreign.FunctionDescriptor.of(
                        java.lang.foreign.ValueLayout.ADDRESS, java.lang.foreign.ValueLayout.ADDRESS));
        try (var arena = java.lang.foreign.Arena.ofConfined()) {
            var value = (java.lang.foreign.MemorySegment) getenv.invokeExact(arena.allocateFrom("UCX_ERROR_SIGNALS"));
            if (System.getenv("UCX_ERROR_SIGNALS") == null) {
                assertEquals("", value.reinterpret(1).getString(0), "set before libucp loaded");
            }
        }
        int caught = 0;
        for (int i = 0; i < 200_000; i++) {
            try {
                caught += lengthOf(i % 1000 == 0 ? null : "x");
            } catch (NullPointerException expected) {
                caught += 1000;
            }
        }
        assertEquals(199_800 + 200 * 1000, caught);
    }

    private static int lengthOf(String s) {
        return s.length();
    }
}
