/*
 * mpi_bench: the Open MPI side of bench/grid.sh. AllReduce and ReduceScatter (float32 sum),
 * AllGather and Broadcast timed the way `jccl perf` and nccl-tests time them, with the same
 * table columns:
 *
 *   mpirun -np 2 ./mpi_bench all_reduce SIZE ITERS WARMUP [CYCLES]
 *
 * SIZE is in bytes and is the larger buffer, as in nccl-tests: for all_gather the receive buffer
 * (each rank sends SIZE / nranks), for reduce_scatter the send buffer (each rank receives
 * SIZE / nranks), for all_reduce and broadcast the whole buffer. Buffers are
 * allocated once and touched before timing (no page faults in the timed loop); calls are
 * out-of-place (no MPI_IN_PLACE; Broadcast has one buffer by definition). time is the mean over
 * ITERS calls after WARMUP untimed ones, averaged across ranks; algbw = SIZE / time;
 * busbw = algbw x 2(n-1)/n for all_reduce, (n-1)/n for all_gather and reduce_scatter, 1 for
 * broadcast. CYCLES (default 1) repeats the timed loop and prints one row per cycle, like
 * `jccl perf -N`: on a VM whose cross-core speed changes from second to second (bench/README.md),
 * one long run shows both levels.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void usage(void) {
    fprintf(stderr, "usage: mpi_bench all_reduce|all_gather|reduce_scatter|broadcast SIZE_BYTES ITERS WARMUP [CYCLES]\n");
}

static void run_once(const char *coll, float *send, float *recv, long count, int nranks) {
    if (strcmp(coll, "all_reduce") == 0) {
        MPI_Allreduce(send, recv, (int) count, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD);
    } else if (strcmp(coll, "all_gather") == 0) {
        MPI_Allgather(send, (int) (count / nranks), MPI_FLOAT, recv, (int) (count / nranks), MPI_FLOAT, MPI_COMM_WORLD);
    } else if (strcmp(coll, "reduce_scatter") == 0) {
        MPI_Reduce_scatter_block(send, recv, (int) (count / nranks), MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD);
    } else {
        MPI_Bcast(recv, (int) count, MPI_FLOAT, 0, MPI_COMM_WORLD);
    }
}

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    int rank, nranks;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nranks);
    if (argc != 5 && argc != 6) {
        if (rank == 0) usage();
        MPI_Finalize();
        return 2;
    }
    const char *coll = argv[1];
    long size = atol(argv[2]);
    int iters = atoi(argv[3]);
    int warmup = atoi(argv[4]);
    int cycles = argc == 6 ? atoi(argv[5]) : 1;
    double factor;
    if (strcmp(coll, "all_reduce") == 0) factor = 2.0 * (nranks - 1) / nranks;
    else if (strcmp(coll, "all_gather") == 0 || strcmp(coll, "reduce_scatter") == 0) factor = (double) (nranks - 1) / nranks;
    else if (strcmp(coll, "broadcast") == 0) factor = 1.0;
    else {
        if (rank == 0) usage();
        MPI_Finalize();
        return 2;
    }
    long count = size / (long) sizeof(float);
    int blocked = strcmp(coll, "all_gather") == 0 || strcmp(coll, "reduce_scatter") == 0;
    if (count < 1 || iters < 1 || warmup < 0 || cycles < 1 || (blocked && count % nranks != 0)) {
        if (rank == 0) fprintf(stderr, "mpi_bench: bad size/iterations (%s needs SIZE a multiple of 4 x nranks)\n", coll);
        MPI_Finalize();
        return 2;
    }
    float *send = malloc((size_t) count * sizeof(float));
    float *recv = malloc((size_t) count * sizeof(float));
    if (send == NULL || recv == NULL) {
        fprintf(stderr, "mpi_bench: rank %d: out of memory for %ld bytes\n", rank, size);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    for (long i = 0; i < count; i++) {
        send[i] = (float) ((i + rank) % 7);
        recv[i] = 0.0f;
    }

    for (int i = 0; i < warmup; i++) run_once(coll, send, recv, count, nranks);
    if (rank == 0) {
        printf("# mpi_bench %s: %d ranks, %d iterations after %d warm-up, out-of-place, float32%s\n",
               coll, nranks, iters, warmup, strcmp(coll, "all_reduce") == 0 || strcmp(coll, "reduce_scatter") == 0 ? " sum" : "");
        printf("#%12s %14s %10s %8s %8s\n", "size", "count", "time", "algbw", "busbw");
        printf("#%12s %14s %10s %8s %8s\n", "(B)", "(elements)", "(us)", "(GB/s)", "(GB/s)");
    }
    for (int cycle = 0; cycle < cycles; cycle++) {
        MPI_Barrier(MPI_COMM_WORLD);
        double start = MPI_Wtime();
        for (int i = 0; i < iters; i++) run_once(coll, send, recv, count, nranks);
        double mine = (MPI_Wtime() - start) / iters;
        double total;
        MPI_Allreduce(&mine, &total, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
        if (rank == 0) {
            double seconds = total / nranks;
            double algbw = size / seconds / 1e9;
            printf(" %12ld %14ld %10.2f %8.2f %8.2f\n", size,
                   blocked ? count / nranks : count, seconds * 1e6, algbw, algbw * factor);
            fflush(stdout);
        }
    }
    free(send);
    free(recv);
    MPI_Finalize();
    return 0;
}
