package dev.jccl.tools.perf;

/**
 * One cell pair of the table: one size, type, op and root, measured out-of-place or in-place. Field names are the JSON
 * names {@code jccl perf --json} writes.
 *
 * @param size bytes, as nccl-tests' {@code size} column (the larger of the send and receive buffers)
 * @param count elements, as nccl-tests' {@code count} column (the count argument of the call)
 * @param type nccl-tests' type name ({@code float}, {@code bfloat16}, …)
 * @param redop nccl-tests' op name, or {@code none} where nothing is reduced
 * @param root the root, or -1 where there is none
 * @param inPlace whether the send and receive buffers were the same memory
 * @param timeUs time per operation in microseconds, aggregated over ranks as {@code -a} says
 * @param algbw size / time, in GB/s (10^9 bytes per second)
 * @param busbw algbw × the collective's bus factor, in GB/s
 * @param wrong mismatched elements summed over all ranks, or null when not checked ({@code -c 0})
 */
public record PerfRow(
        long size,
        long count,
        String type,
        String redop,
        int root,
        boolean inPlace,
        double timeUs,
        double algbw,
        double busbw,
        Long wrong) {}
