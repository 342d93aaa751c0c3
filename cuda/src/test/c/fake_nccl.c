/*
 * A stand-in for libnccl, for testing Jccl's FFM binding (NcclLibrary, NcclCommunicator) where
 * there is no GPU: NCCL's signatures, enum values and result codes, with the data movement of a
 * one-rank communicator over host memory (send to recv). It records the arguments of the last
 * call, checks that the unique id reaching ncclCommInitRank (by value) is the one ncclGetUniqueId
 * made, and can be told to report an asynchronous error (fake_nccl_set / fake_nccl_get).
 * Written for Jccl's tests; not derived from NVIDIA's code.
 */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

typedef struct { char internal[128]; } ncclUniqueId;
typedef struct { int nranks; int rank; } fake_comm;

static int version = 22105;
static unsigned char made[128];
static long ids_made, inits, id_mismatches, aborts, destroys, groups;
static int async_error;
static int hang_in_group_end; /* ncclGroupEnd blocks until the communicator is aborted, as a first connection to a missing peer does */
static long last[8]; /* call, count, datatype, op, root or peer, stream, nranks, rank */
static const char *last_error = "";
static const void *pending_send;
static size_t pending_bytes;

void fake_nccl_set(int what, long value) {
    switch (what) {
        case 0: version = (int) value; break;
        case 1: async_error = (int) value; last_error = value ? "fake: peer 1 closed its connection" : ""; break;
        case 2: hang_in_group_end = (int) value; break;
    }
}

long fake_nccl_get(int what) {
    if (what >= 0 && what < 8) return last[what];
    switch (what) {
        case 8: return ids_made;
        case 9: return inits;
        case 10: return id_mismatches;
        case 11: return aborts;
        case 12: return destroys;
        case 13: return groups;
        default: return -1;
    }
}

static size_t type_size(int t) {
    switch (t) {
        case 0: case 1: return 1;
        case 6: case 9: return 2;
        case 2: case 3: case 7: return 4;
        case 4: case 5: case 8: return 8;
        default: return 0;
    }
}

static int record(int call, size_t count, int type, int op, int root, void *stream) {
    last[0] = call; last[1] = (long) count; last[2] = type; last[3] = op; last[4] = root; last[5] = (long) stream;
    if (type_size(type) == 0 || op < 0 || op > 4) { last_error = "fake: invalid datatype or op"; return 4; }
    return 0;
}

int ncclGetVersion(int *v) { *v = version; return 0; }

int ncclGetUniqueId(ncclUniqueId *id) {
    ids_made++;
    for (int i = 0; i < 128; i++) made[i] = (unsigned char) (i * 7 + 3 + ids_made);
    memcpy(id->internal, made, 128);
    return 0;
}

int ncclCommInitRank(fake_comm **comm, int nranks, ncclUniqueId id, int rank) {
    if (memcmp(id.internal, made, 128) != 0) id_mismatches++;
    fake_comm *c = malloc(sizeof *c);
    c->nranks = nranks;
    c->rank = rank;
    *comm = c;
    __atomic_add_fetch(&inits, 1, __ATOMIC_RELAXED);
    last[6] = nranks;
    last[7] = rank;
    return 0;
}

int ncclAllReduce(const void *s, void *r, size_t count, int type, int op, fake_comm *c, void *stream) {
    (void) c;
    int rc = record(1, count, type, op, -1, stream);
    if (rc == 0 && s != r) memmove(r, s, count * type_size(type));
    return rc;
}

int ncclBroadcast(const void *s, void *r, size_t count, int type, int root, fake_comm *c, void *stream) {
    (void) c;
    int rc = record(2, count, type, 0, root, stream);
    if (rc == 0 && s != r) memmove(r, s, count * type_size(type));
    return rc;
}

int ncclReduce(const void *s, void *r, size_t count, int type, int op, int root, fake_comm *c, void *stream) {
    int rc = record(3, count, type, op, root, stream);
    if (rc == 0 && c->rank == root && s != r) memmove(r, s, count * type_size(type));
    return rc;
}

int ncclAllGather(const void *s, void *r, size_t count, int type, fake_comm *c, void *stream) {
    int rc = record(4, count, type, 0, -1, stream);
    char *dst = (char *) r + (size_t) c->rank * count * type_size(type);
    if (rc == 0 && (const void *) dst != s) memmove(dst, s, count * type_size(type));
    return rc;
}

int ncclReduceScatter(const void *s, void *r, size_t count, int type, int op, fake_comm *c, void *stream) {
    int rc = record(5, count, type, op, -1, stream);
    const char *src = (const char *) s + (size_t) c->rank * count * type_size(type);
    if (rc == 0 && (const void *) src != r) memmove(r, src, count * type_size(type));
    return rc;
}

int ncclSend(const void *s, size_t count, int type, int peer, fake_comm *c, void *stream) {
    (void) c;
    int rc = record(6, count, type, 0, peer, stream);
    pending_send = s;
    pending_bytes = count * type_size(type);
    return rc;
}

int ncclRecv(void *r, size_t count, int type, int peer, fake_comm *c, void *stream) {
    (void) c;
    int rc = record(7, count, type, 0, peer, stream);
    if (rc == 0 && pending_send) memmove(r, pending_send, count * type_size(type) < pending_bytes ? count * type_size(type) : pending_bytes);
    pending_send = NULL;
    return rc;
}

int ncclGroupStart(void) { return 0; }
int ncclGroupEnd(void) {
    groups++;
    if (hang_in_group_end) {
        long before = __atomic_load_n(&aborts, __ATOMIC_ACQUIRE);
        while (__atomic_load_n(&aborts, __ATOMIC_ACQUIRE) == before) usleep(1000);
        return 6; /* ncclRemoteError, as a call cut short by an abort reports */
    }
    return 0;
}

int ncclCommGetAsyncError(fake_comm *c, int *error) { (void) c; *error = async_error; return 0; }
int ncclCommAbort(fake_comm *c) { (void) c; __atomic_add_fetch(&aborts, 1, __ATOMIC_RELEASE); return 0; }
int ncclCommDestroy(fake_comm *c) { free(c); destroys++; return 0; }

/* The fake's own sentences (tests check that Jccl passes them on, not what they say). */
const char *ncclGetErrorString(int r) {
    switch (r) {
        case 0: return "fake: fine";
        case 4: return "fake: bad argument";
        case 6: return "fake: a remote rank went away";
        default: return "fake: some failure";
    }
}

const char *ncclGetLastError(fake_comm *c) { (void) c; return last_error; }
