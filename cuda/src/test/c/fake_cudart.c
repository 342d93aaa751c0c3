/*
 * A stand-in for libcudart, for testing Jccl's FFM binding (CudaRuntime, CudaDeviceMemory) where
 * there is no GPU: the functions Jccl calls, with CUDA's signatures and error codes, over host
 * memory. Copies happen at once. Test hooks (fake_cuda_set / fake_cuda_get) make queries report
 * "not ready", make the next asynchronous copy fail, or change the device count.
 * Written for Jccl's tests; not derived from NVIDIA's code.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <pthread.h>

static int busy;            /* cudaStreamQuery / cudaEventQuery say cudaErrorNotReady */
static int fail_next_copy;  /* error code for the next cudaMemcpyAsync, 0 for none */
static int device_count = 2;
static __thread int current_device;
static long async_copies;
static int last_kind = -1;
static long live_allocations;

int fake_cuda_set(int what, int value) {
    switch (what) {
        case 0: busy = value; break;
        case 1: fail_next_copy = value; break;
        case 2: device_count = value; break;
        default: return -1;
    }
    return 0;
}

/* CUDA 12/13 layout: enum cudaMemoryType type; int device; void *devicePointer; void *hostPointer; long reserved[8].
 * Written whole, as the real runtime does, so a caller's buffer must hold all 88 bytes. */
struct fake_pointer_attributes { int type; int device; void *device_pointer; void *host_pointer; long reserved[8]; };

long fake_cuda_get(int what) {
    switch (what) {
        case 0: return async_copies;
        case 1: return last_kind;
        case 2: return current_device;
        case 3: return live_allocations;
        case 4: return (long) sizeof(struct fake_pointer_attributes);
        default: return -1;
    }
}

int cudaRuntimeGetVersion(int *v) { *v = 12040; return 0; }
int cudaDriverGetVersion(int *v) { *v = 12060; return 0; }

int cudaGetDeviceCount(int *n) {
    *n = device_count;
    return device_count == 0 ? 100 : 0; /* cudaErrorNoDevice */
}

int cudaSetDevice(int d) {
    if (d < 0 || d >= device_count) return 101; /* cudaErrorInvalidDevice */
    current_device = d;
    return 0;
}

/* Device allocations, so that cudaPointerGetAttributes can tell device memory from host memory. */
#define MAX_TRACKED 4096
static struct { char *start; size_t bytes; int device; } tracked[MAX_TRACKED];
static pthread_mutex_t tracked_lock = PTHREAD_MUTEX_INITIALIZER;

static void track(void *p, size_t n) {
    pthread_mutex_lock(&tracked_lock);
    for (int i = 0; i < MAX_TRACKED; i++) {
        if (!tracked[i].start) { tracked[i].start = p; tracked[i].bytes = n; tracked[i].device = current_device; break; }
    }
    pthread_mutex_unlock(&tracked_lock);
}

static void untrack(void *p) {
    pthread_mutex_lock(&tracked_lock);
    for (int i = 0; i < MAX_TRACKED; i++) if (tracked[i].start == p) tracked[i].start = 0;
    pthread_mutex_unlock(&tracked_lock);
}

static int host_alloc(void **p, size_t n) {
    *p = malloc(n ? n : 1);
    if (!*p) return 2; /* cudaErrorMemoryAllocation */
    __atomic_add_fetch(&live_allocations, 1, __ATOMIC_RELAXED);
    return 0;
}

int cudaMalloc(void **p, size_t n) {
    int e = host_alloc(p, n);
    if (e == 0) track(*p, n ? n : 1);
    return e;
}

int cudaFree(void *p) {
    untrack(p);
    free(p);
    __atomic_sub_fetch(&live_allocations, 1, __ATOMIC_RELAXED);
    return 0;
}

int cudaHostAlloc(void **p, size_t n, unsigned int flags) {
    (void) flags;
    return host_alloc(p, n);
}

int cudaFreeHost(void *p) {
    free(p);
    __atomic_sub_fetch(&live_allocations, 1, __ATOMIC_RELAXED);
    return 0;
}

int cudaPointerGetAttributes(struct fake_pointer_attributes *a, const void *ptr) {
    const char *c = ptr;
    memset(a, 0, sizeof *a);
    a->type = 0; /* cudaMemoryTypeUnregistered */
    a->device = -2;
    a->device_pointer = 0;
    a->host_pointer = (void *) ptr;
    pthread_mutex_lock(&tracked_lock);
    for (int i = 0; i < MAX_TRACKED; i++) {
        if (tracked[i].start && c >= tracked[i].start && c < tracked[i].start + tracked[i].bytes) {
            a->type = 2; /* cudaMemoryTypeDevice */
            a->device = tracked[i].device;
            a->device_pointer = (void *) ptr;
            a->host_pointer = 0;
            break;
        }
    }
    pthread_mutex_unlock(&tracked_lock);
    return 0;
}

int cudaMemcpy(void *dst, const void *src, size_t n, int kind) {
    (void) kind;
    memmove(dst, src, n);
    return 0;
}

int cudaMemcpyAsync(void *dst, const void *src, size_t n, int kind, void *stream) {
    (void) stream;
    __atomic_add_fetch(&async_copies, 1, __ATOMIC_RELAXED);
    last_kind = kind;
    int e = __atomic_exchange_n(&fail_next_copy, 0, __ATOMIC_RELAXED);
    if (e) return e;
    memmove(dst, src, n);
    return 0;
}

int cudaMemset(void *dst, int value, size_t n) { memset(dst, value, n); return 0; }

int cudaStreamCreateWithFlags(void **s, unsigned int flags) { (void) flags; *s = malloc(16); return 0; }
int cudaStreamDestroy(void *s) { free(s); return 0; }
int cudaStreamQuery(void *s) { (void) s; return busy ? 600 : 0; }
int cudaStreamSynchronize(void *s) { (void) s; return 0; }

int cudaEventCreateWithFlags(void **e, unsigned int flags) { (void) flags; *e = malloc(16); return 0; }
int cudaEventRecord(void *e, void *s) { (void) e; (void) s; return 0; }
int cudaEventQuery(void *e) { (void) e; return busy ? 600 : 0; }
int cudaEventDestroy(void *e) { free(e); return 0; }

const char *cudaGetErrorName(int e) {
    switch (e) {
        case 0: return "cudaSuccess";
        case 1: return "cudaErrorInvalidValue";
        case 2: return "cudaErrorMemoryAllocation";
        case 100: return "cudaErrorNoDevice";
        case 101: return "cudaErrorInvalidDevice";
        case 600: return "cudaErrorNotReady";
        case 700: return "cudaErrorIllegalAddress";
        default: return "cudaErrorUnknown";
    }
}

/* The fake's own sentences (tests check that Jccl passes them on, not what they say). */
const char *cudaGetErrorString(int e) {
    switch (e) {
        case 0: return "fake: fine";
        case 1: return "fake: bad argument";
        case 600: return "fake: still running";
        default: return "fake: some failure";
    }
}

int cudaDeviceGetPCIBusId(char *buf, int len, int device) {
    snprintf(buf, (size_t) len, "0000:%02X:00.0", 0x1b + device);
    return 0;
}

int cudaGetDeviceProperties_v2(void *props, int device) {
    memset(props, 0, 1024);
    snprintf((char *) props, 256, "Fake GPU %d", device);
    return 0;
}
