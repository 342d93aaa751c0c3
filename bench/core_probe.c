/*
 * core_probe: how long one cache line takes to go from one CPU to another and back, right now.
 * bench/grid.sh runs it before every timed run and prints the range beside each cell.
 *
 *   ./core_probe            prints "<ns per round trip>"
 *
 * Why: on a virtual machine the hypervisor decides where the vCPUs run, and it changes its mind.
 * On the 2-vCPU development machine the round trip alternates, for a minute or two at a time,
 * between about 100 ns and about 420 ns (measured 2026-11-27). Every small collective pays that
 * line crossing once or more per call, whichever library runs it: an 8-byte Broadcast on 2 ranks
 * took 0.12 µs (Jccl) and 0.06 µs (Open MPI) in the fast phase, 0.24 and 0.11 in the slow one. Two
 * runs of one cell that fall in different phases differ by 2-4x, so a ratio between them says more
 * about the hypervisor than about either library; the probe's figure says which phase each run met.
 *
 * Two threads, pinned to the first two CPUs this process may use, pass a counter back and forth
 * through one cache line. With fewer than two CPUs it prints "-".
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <time.h>

#define ROUND_TRIPS 100000

static _Alignas(64) atomic_long ball;
static int cpus[2];

static void pin(int cpu) {
    cpu_set_t set;
    CPU_ZERO(&set);
    CPU_SET(cpu, &set);
    pthread_setaffinity_np(pthread_self(), sizeof set, &set);
}

static void *partner(void *unused) {
    (void) unused;
    pin(cpus[1]);
    for (long i = 1; i < 2 * ROUND_TRIPS; i += 2) {
        while (atomic_load_explicit(&ball, memory_order_acquire) != i) {
        }
        atomic_store_explicit(&ball, i + 1, memory_order_release);
    }
    return NULL;
}

static double now_ns(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1e9 + t.tv_nsec;
}

int main(void) {
    cpu_set_t allowed;
    if (sched_getaffinity(0, sizeof allowed, &allowed) != 0) {
        puts("-");
        return 0;
    }
    int found = 0;
    for (int c = 0; c < CPU_SETSIZE && found < 2; c++) {
        if (CPU_ISSET(c, &allowed)) cpus[found++] = c;
    }
    if (found < 2) {
        puts("-");
        return 0;
    }
    pin(cpus[0]);
    pthread_t thread;
    if (pthread_create(&thread, NULL, partner, NULL) != 0) {
        puts("-");
        return 0;
    }
    double start = now_ns();
    for (long i = 1; i < 2 * ROUND_TRIPS; i += 2) {
        atomic_store_explicit(&ball, i, memory_order_release);
        while (atomic_load_explicit(&ball, memory_order_acquire) != i + 1) {
        }
    }
    double elapsed = now_ns() - start;
    pthread_join(thread, NULL);
    printf("%.0f\n", elapsed / ROUND_TRIPS);
    return 0;
}
