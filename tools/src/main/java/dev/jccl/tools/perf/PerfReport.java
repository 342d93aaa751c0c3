package dev.jccl.tools.perf;

import java.util.List;

/**
 * Everything one {@code jccl perf} run measured, as {@code --json FILE} writes it and {@code jccl perf plot} reads it
 * back.
 *
 * @param tool always {@code "jccl perf"}
 * @param version Jccl's version
 * @param collective nccl-tests' name of the benchmark ({@code all_reduce}, {@code sendrecv}, …)
 * @param ranks number of ranks
 * @param hosts number of distinct hosts among the ranks
 * @param transport transports in use between ranks ({@code tcp}, {@code local} for one rank, …)
 * @param algorithm the algorithm of the largest size (ring, chain, pairwise, p2p, local)
 * @param label the run's name in plots: transport, algorithm and ranks
 * @param host rank 0's host name
 * @param started when the run started, ISO-8601 UTC
 * @param command the perf arguments of the run
 * @param rows every measured row, in table order
 * @param outOfBounds rows whose check found wrong elements (nccl-tests' {@code Out of bounds values})
 * @param avgBusBandwidth mean busbw over every row, in GB/s
 */
public record PerfReport(
        String tool,
        String version,
        String collective,
        int ranks,
        int hosts,
        String transport,
        String algorithm,
        String label,
        String host,
        String started,
        List<String> command,
        List<PerfRow> rows,
        long outOfBounds,
        double avgBusBandwidth) {
    public PerfReport {
        command = List.copyOf(command);
        rows = List.copyOf(rows);
    }
}
