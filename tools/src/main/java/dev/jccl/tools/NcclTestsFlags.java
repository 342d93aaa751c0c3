package dev.jccl.tools;

import java.util.ArrayList;
import java.util.List;

/**
 * The flags of nccl-tests that {@code jccl perf} accepts so that harnesses written for {@code all_reduce_perf} run it
 * unchanged, but that cannot mean here what they mean there. Each is either refused with the reason (a value whose
 * meaning Jccl cannot give: several threads or GPUs per rank) or carried out with a one-line note in the header (a
 * value that changes nothing here, said so that nobody reads the table as if it had).
 *
 * @param threads {@code -t}: ranks as threads of one process; Jccl's perf runs one rank per process
 * @param gpus {@code -g}: GPUs per thread; one device per rank
 * @param cycles {@code -N}: carried out by the command; checked here
 * @param parallelInit {@code -p}: threads that initialise the ranks of one process
 * @param cudaGraphs {@code -G}: replays of a captured CUDA graph
 * @param cpuTime {@code -C}: CPU time instead of CUDA event time
 * @param register {@code -R}: buffer registration (1 local, 2 symmetric)
 */
record NcclTestsFlags(int threads, int gpus, int cycles, int parallelInit, int cudaGraphs, int cpuTime, int register) {

    NcclTestsFlags {
        if (threads != 1) {
            throw new IllegalArgumentException("-t " + threads + ": jccl perf runs one rank per process; start "
                    + threads + "x the processes instead (-np, or the launcher's process count)");
        }
        if (gpus != 1) {
            throw new IllegalArgumentException("-g " + gpus + ": jccl perf drives one device per rank; start one"
                    + " process per GPU instead (-np, or mpirun/srun with one task per GPU) and pass --device cuda");
        }
        if (cycles < 0) throw new IllegalArgumentException("-N (run_cycles) must be 0 (run until stopped) or more");
        requireRange("-p (parallel_init)", parallelInit, 0, 1);
        if (cudaGraphs < 0) throw new IllegalArgumentException("-G (cudagraph) must not be negative");
        requireRange("-C (report_cputime)", cpuTime, 0, 1);
        requireRange("-R (local_register)", register, 0, 2);
    }

    private static void requireRange(String flag, int value, int min, int max) {
        if (value < min || value > max) {
            throw new IllegalArgumentException(flag + " must be " + min + " to " + max + ", got " + value);
        }
    }

    /** Header lines, nccl-tests' {@code #} comments, for every flag given a value that changes nothing here. */
    List<String> notes() {
        List<String> out = new ArrayList<>();
        if (parallelInit == 1) out.add("# -p 1: no effect: each process initialises its one rank itself");
        if (cudaGraphs > 0) {
            out.add("# -G " + cudaGraphs + ": no CUDA graphs: every iteration is a plain call (graph: 0 below)");
        }
        if (cpuTime == 1) out.add("# -C 1: no effect: the times are taken on the CPU's clock in every case");
        if (register > 0) {
            out.add("# -R " + register + ": no effect: Jccl registers no user buffer ahead (UCX keeps its own"
                    + " registration cache)");
        }
        return out;
    }
}
