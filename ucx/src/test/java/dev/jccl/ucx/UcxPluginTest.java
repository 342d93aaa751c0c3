package dev.jccl.ucx;

import dev.jccl.transport.NetPluginException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.util.List;

import static org.junit.jupiter.api.Assertions.*;

@Timeout(30)
class UcxPluginTest {
    private static final List<String> PORTS = List.of("mlx5_0:1", "mlx5_1:1", "mlx5_1:2", "mlx5_10:1");

    @Test
    void ibHcaFollowsNcclsSyntax() {
        assertEquals(PORTS, UcxPlugin.select(PORTS, null));
        assertEquals(List.of("mlx5_1:1", "mlx5_1:2", "mlx5_10:1"), UcxPlugin.select(PORTS, "mlx5_1"), "names are prefixes");
        assertEquals(List.of("mlx5_1:1", "mlx5_1:2"), UcxPlugin.select(PORTS, "=mlx5_1"), "= makes them exact");
        assertEquals(List.of("mlx5_1:2"), UcxPlugin.select(PORTS, "=mlx5_1:2"), "a port narrows it");
        assertEquals(List.of("mlx5_0:1", "mlx5_10:1"), UcxPlugin.select(PORTS, "^=mlx5_1"), "^ excludes");
    }

    @Test
    void theUcxHereIsFoundAndRecentEnough() throws NetPluginException {
        String probe = new UcxPlugin().probe();
        assertTrue(probe.matches("UCX 1\\.\\d+\\.\\d+ \\(libucp\\.so\\.0\\), JUCX 1\\.12\\.1, .*"), probe);
        UcxLibrary.Version v = UcxLibrary.version();
        assertTrue(v.major() > 1 || v.minor() >= UcxLibrary.MIN_MINOR, v.toString());
    }
}
