package dev.jccl;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;

/** The real Open MPI {@code mpirun}, as the tests start it: on this host's loopback only. */
public final class MpirunOnLoopback {
    private MpirunOnLoopback() {}

    /**
     * {@code mpirun} for {@code np} processes, root allowed, oversubscribed, unbound, its own wiring on loopback, with
     * a fresh JCCL_ID (whose listener is left for rank 0 to bind in its own process) and JCCL_SOCKET_IFNAME=lo exported
     * to the ranks. A mutable list: more options, then the program and its arguments, follow.
     */
    public static List<String> command(int np) throws IOException {
        UniqueId id = TestRanks.loopbackIdForOtherProcesses();
        return new ArrayList<>(List.of(
                "mpirun",
                "--allow-run-as-root",
                "--oversubscribe",
                "--bind-to",
                "none",
                "-np",
                Integer.toString(np),
                "--mca",
                "oob_tcp_if_include",
                "lo",
                "--mca",
                "btl_tcp_if_include",
                "lo",
                "-x",
                "JCCL_ID=" + id,
                "-x",
                "JCCL_SOCKET_IFNAME=lo"));
    }
}
