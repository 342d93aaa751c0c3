/*
 * core_probe: how long one cache line takes to go from one CPU to another and back, right now.
 * bench/grid.sh runs it after every timed run and watches it during the runs, and prints the
 * range beside each cell.
 *
 *   ./core_probe            prints "<ns per round trip>" (the fastest of 20 bursts of 5,000)
 *   ./core_probe --now      prints this machine's monotonic clock in ms (the watch's time base)
 *   ./core_probe --watch MS every MS milliseconds prints "<monotonic ms> <ns per round trip>", until killed
 *
 * Why: on a virtual machine the hypervisor decides where the vCPUs run, and it changes its mind.
 * On the 2-vCPU development machine the round trip alternates between about 100 ns and about 420 ns
 * (measured 2026-11-27). Every small collective pays that line crossing once or more per call,
 * whichever library runs it: an 8-byte Broadcast on 2 ranks took 0.12 µs (Jccl) and 0.06 µs
 * (Open MPI) in the fast phase, 0.24 and 0.11 in the slow one. Two runs of one cell that fall in
 * different phases differ by 2-4x, so a ratio between them says more about the hypervisor than
 * about either library; the probe's figure says which phase each run met.
 *
 * A phase can last a minute or a second: on 2026-12-08 a watch every 0.5 s during a 40 s run of
 * the 4-rank 64 KiB Broadcast read 55-113 ns beside each of its 8 rows of 6-9 µs a call and
 * 384-453 ns beside each of its 4 rows of 37-63 µs, with the rows one to four seconds apart. So
 * probes before and after a run are not enough, and the watch exists.
 *
 * Two threads, pinned to the first two CPUs this process may use, pass a counter back and forth
 * through one cache line. With fewer than two CPUs it prints "-". A probe shares the CPUs with
 * the benchmark it watches (and a one-off probe with the watch), so one of its threads may wait
 * for a time slice in the middle of a measurement: each figure is the fastest of several bursts,
 * which a preempted burst does not win. A watch sample is 8 bursts of 500 round trips, 0.2-2 ms
 * of both CPUs.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define ROUND_TRIPS 5000
#define BURSTS 20
#define WATCH_TRIPS 500
#define WATCH_BURSTS 8

static _Alignas(64) atomic_long ball;
static int cpus[2];
static long partner_trips;

static void pin(int cpu) {
    cpu_set_t set;
    CPU_ZERO(&set);
    CPU_SET(cpu, &set);
    pthread_setaffinity_np(pthread_self(), sizeof set, &set);
}

static void *partner(void *unused) {
    (void) unused;
    pin(cpus[1]);
    for (long i = 1; i < 2 * partner_trips; i += 2) {
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

/* The first two CPUs this process may use; 0 if it may use fewer than two. */
static int find_cpus(void) {
    cpu_set_t allowed;
    if (sched_getaffinity(0, sizeof allowed, &allowed) != 0) return 0;
    int found = 0;
    for (int c = 0; c < CPU_SETSIZE && found < 2; c++) {
        if (CPU_ISSET(c, &allowed)) cpus[found++] = c;
    }
    return found == 2;
}

/*
 * ns per round trip: the fastest of `bursts` bursts of `trips` round trips each, or -1 if the
 * partner thread cannot start. The caller runs pinned to the first CPU.
 */
static double round_trip_ns(long trips, int bursts) {
    atomic_store(&ball, 0);
    partner_trips = trips * bursts;
    pthread_t thread;
    if (pthread_create(&thread, NULL, partner, NULL) != 0) return -1;
    double best = -1;
    for (long b = 0, i = 1; b < bursts; b++) {
        double start = now_ns();
        for (long end = i + 2 * trips; i < end; i += 2) {
            atomic_store_explicit(&ball, i, memory_order_release);
            while (atomic_load_explicit(&ball, memory_order_acquire) != i + 1) {
            }
        }
        double each = (now_ns() - start) / trips;
        if (best < 0 || each < best) best = each;
    }
    pthread_join(thread, NULL);
    return best;
}

int main(int argc, char **argv) {
    if (argc == 2 && strcmp(argv[1], "--now") == 0) {
        printf("%.0f\n", now_ns() / 1e6);
        return 0;
    }
    long watch_ms = 0;
    if (argc == 3 && strcmp(argv[1], "--watch") == 0) watch_ms = atol(argv[2]);
    if (argc > 1 && watch_ms <= 0) {
        fprintf(stderr, "usage: core_probe [--now | --watch MS]\n");
        return 2;
    }
    if (!find_cpus()) {
        puts("-");
        return 0;
    }
    pin(cpus[0]);
    if (watch_ms == 0) {
        double ns = round_trip_ns(ROUND_TRIPS, BURSTS);
        if (ns < 0) puts("-");
        else printf("%.0f\n", ns);
        return 0;
    }
    for (;;) {
        double ns = round_trip_ns(WATCH_TRIPS, WATCH_BURSTS);
        if (ns >= 0) printf("%.0f %.0f\n", now_ns() / 1e6, ns);
        fflush(stdout);
        usleep((useconds_t) (watch_ms * 1000));
    }
}
