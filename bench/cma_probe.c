/*
 * cma_probe: what one process_vm_readv costs on this machine, the system call behind Jccl's single copy
 * (JCCL_SHM_SINGLE_COPY, CrossMemory.java). A forked child copies SIZE bytes out of its parent's buffer, which the
 * parent wrote once and never again, in CALLS calls per round, 20000 rounds, five times:
 *
 *   cc -O2 -o bench/target/cma_probe bench/cma_probe.c && bench/target/cma_probe 65536 1
 *
 * Measured 2026-11-28 on the project's 2-vCPU VM (PTI on, no PCID): 4 KiB 1.55 µs, 32 KiB 3.7 µs, 64 KiB 5.9 µs in
 * one call and 7.3 in two. The child dies with its parent (PR_SET_PDEATHSIG), so a killed probe leaves nothing
 * spinning.
 */
#define _GNU_SOURCE
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec + t.tv_nsec * 1e-9;
}

int main(int argc, char **argv) {
    if (argc != 3) {
        fprintf(stderr, "usage: cma_probe SIZE CALLS\n");
        return 2;
    }
    long size = atol(argv[1]);
    int calls = atoi(argv[2]);
    if (size < calls || calls < 1) {
        fprintf(stderr, "cma_probe: SIZE must be at least CALLS, and CALLS at least 1\n");
        return 2;
    }
    char *src = aligned_alloc(4096, (size + 4095) / 4096 * 4096);
    memset(src, 1, size);
    pid_t parent = getpid();
    pid_t child = fork();
    if (child == 0) {
        prctl(PR_SET_PDEATHSIG, SIGKILL);
        char *dst = aligned_alloc(4096, (size + 4095) / 4096 * 4096);
        long per = size / calls;
        for (int round = 0; round < 5; round++) {
            int iterations = 20000;
            double start = now();
            for (int i = 0; i < iterations; i++) {
                for (int c = 0; c < calls; c++) {
                    struct iovec local = {dst + c * per, per}, remote = {src + c * per, per};
                    if (process_vm_readv(parent, &local, 1, &remote, 1, 0) != per) {
                        perror("process_vm_readv");
                        exit(1);
                    }
                }
            }
            double us = (now() - start) / iterations * 1e6;
            printf("%ld B in %d call(s): %.2f us (%.1f GB/s)\n", per * calls, calls, us, per * calls / us / 1e3);
        }
        exit(0);
    }
    int status;
    waitpid(child, &status, 0);
    return WIFEXITED(status) ? WEXITSTATUS(status) : 1;
}
