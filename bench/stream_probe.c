/*
 * stream_probe: what the VM's phases do to streaming through shared memory, with no JVM and nothing of Jccl's.
 *
 *   ./stream_probe [SECONDS]        (default 30) prints one line per window:
 *   <s since start> exchange <µs> line <ns>
 *
 * Two processes stream 512 KiB to each other through one shared-memory ring per direction (4 MiB rings, 64 KiB
 * pieces, a head and a tail counter per ring, as Jccl's ShmRing does) and each adds what it receives into a float
 * buffer: one "exchange" is the reduce step of a 2-rank 1 MiB AllReduce. After every 3000 exchanges the two
 * processes bounce one cache line 5000 times, the round trip bench/core_probe measures, so each line shows the
 * exchange's speed beside the phase it met, measured at the same moment by the same processes.
 *
 * Why: a 1 MiB AllReduce on 2 ranks took 70-110 µs in some runs and 480-620 in others, and a probe run only before
 * each run could not tell whether the VM's phase was the cause. Measured 2026-11-28: 31-38 µs an exchange while the
 * round trip read 49-73 ns, 201-267 µs from the window it read 306-340 ns.
 *
 * Build: cc -O2 -o stream_probe stream_probe.c (bench/grid.sh does not need it).
 */
#define _GNU_SOURCE
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define EXCHANGE_BYTES (512L << 10)
#define PIECE_BYTES (64L << 10)
#define RING_BYTES (4L << 20)
#define EXCHANGES_PER_WINDOW 3000
#define ROUND_TRIPS 5000

/* One ring's counters, each on its own cache line: bytes published (tail) and bytes consumed (head). */
struct ring_control {
    _Alignas(64) atomic_long tail;
    _Alignas(64) atomic_long head;
};

struct shared {
    struct ring_control ring[2]; /* ring[r]: written by process r */
    _Alignas(64) atomic_long ball;
    _Alignas(64) atomic_long window_done[2];
    _Alignas(64) atomic_long decided; /* the last window whose stop decision is made */
    _Alignas(64) atomic_int stop;
};

static double now_ns(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1e9 + t.tv_nsec;
}

static void add_floats(float *dst, const float *src, long n) {
    for (long i = 0; i < n; i++) dst[i] += src[i];
}

int main(int argc, char **argv) {
    double seconds = argc > 1 ? atof(argv[1]) : 30;
    size_t map_bytes = sizeof(struct shared) + 2 * RING_BYTES;
    char *map = mmap(NULL, map_bytes, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    if (map == MAP_FAILED) { perror("mmap"); return 1; }
    memset(map, 0, map_bytes);
    struct shared *sh = (struct shared *) map;
    char *rings = map + sizeof(struct shared);

    pid_t child = fork();
    if (child < 0) { perror("fork"); return 1; }
    int me = child == 0 ? 1 : 0;
    if (me == 1) prctl(PR_SET_PDEATHSIG, SIGKILL); /* never outlive the parent, even under timeout(1) */
    char *mine = rings + me * RING_BYTES, *theirs = rings + (1 - me) * RING_BYTES;
    struct ring_control *out = &sh->ring[me], *in = &sh->ring[1 - me];

    char *src = malloc(EXCHANGE_BYTES);
    float *dst = malloc(EXCHANGE_BYTES);
    memset(src, 0, EXCHANGE_BYTES);
    memset(dst, 0, EXCHANGE_BYTES);
    long written = 0, read = 0;
    double start = now_ns();

    for (long window = 1; !atomic_load(&sh->stop); window++) {
        double t0 = now_ns();
        for (int x = 0; x < EXCHANGES_PER_WINDOW; x++) {
            long sent = 0, received = 0;
            while (sent < EXCHANGE_BYTES || received < EXCHANGE_BYTES) {
                if (sent < EXCHANGE_BYTES && written - atomic_load(&out->head) + PIECE_BYTES <= RING_BYTES) {
                    memcpy(mine + written % RING_BYTES, src + sent, PIECE_BYTES);
                    written += PIECE_BYTES;
                    sent += PIECE_BYTES;
                    atomic_store(&out->tail, written);
                }
                if (received < EXCHANGE_BYTES && atomic_load(&in->tail) >= read + PIECE_BYTES) {
                    add_floats(dst + received / 4, (float *) (theirs + read % RING_BYTES), PIECE_BYTES / 4);
                    read += PIECE_BYTES;
                    received += PIECE_BYTES;
                    atomic_store(&in->head, read);
                }
            }
        }
        double exchange_us = (now_ns() - t0) / EXCHANGES_PER_WINDOW / 1000;

        long base = (window - 1) * 2 * ROUND_TRIPS;
        t0 = now_ns();
        for (long i = base; i < base + 2 * ROUND_TRIPS; i += 2) {
            if (me == 0) {
                atomic_store(&sh->ball, i + 1);
                while (atomic_load(&sh->ball) != i + 2) {}
            } else {
                while (atomic_load(&sh->ball) != i + 1) {}
                atomic_store(&sh->ball, i + 2);
            }
        }
        double line_ns = (now_ns() - t0) / ROUND_TRIPS;

        atomic_store(&sh->window_done[me], window);
        while (atomic_load(&sh->window_done[1 - me]) < window) {}
        /* Process 0 prints and decides whether to go on; process 1 waits for that decision, so both stop alike. */
        if (me == 0) {
            printf("%.1f exchange %.0f line %.0f\n", (now_ns() - start) / 1e9, exchange_us, line_ns);
            fflush(stdout);
            if (now_ns() - start > seconds * 1e9) atomic_store(&sh->stop, 1);
            atomic_store(&sh->decided, window);
        } else {
            while (atomic_load(&sh->decided) < window) {}
        }
    }
    if (me == 0) waitpid(child, NULL, 0);
    return 0;
}
