package dev.jccl.cuda;

/**
 * The NCCL functions Jccl calls, one Java method per C function, with NCCL's own argument order and raw values
 * (pointers, handles, enum values, {@code ncclResult_t}). {@link NcclLibrary} is the real one (libnccl through FFM);
 * tests put a stand-in behind the same interface to exercise deadlines, aborts and asynchronous errors without a GPU.
 */
interface NcclApi {
    /** NCCL's version code ({@code ncclGetVersion}). */
    int version();

    /** Where the library was loaded from. */
    String library();

    /** {@code ncclGetUniqueId} into {@code id} (128 bytes). */
    int getUniqueId(byte[] id);

    /** {@code ncclCommInitRank}; the new communicator's handle goes to {@code comm[0]}. */
    int commInitRank(long[] comm, int nranks, byte[] id, int rank);

    int allReduce(long send, long recv, long count, int type, int op, long comm, long stream);

    int broadcast(long send, long recv, long count, int type, int root, long comm, long stream);

    int reduce(long send, long recv, long count, int type, int op, int root, long comm, long stream);

    int allGather(long send, long recv, long sendCount, int type, long comm, long stream);

    int reduceScatter(long send, long recv, long recvCount, int type, int op, long comm, long stream);

    int send(long buf, long count, int type, int peer, long comm, long stream);

    int recv(long buf, long count, int type, int peer, long comm, long stream);

    int groupStart();

    int groupEnd();

    /** {@code ncclCommGetAsyncError}: the communicator's asynchronous error into {@code error[0]}. */
    int commGetAsyncError(long comm, int[] error);

    int commAbort(long comm);

    int commDestroy(long comm);

    /** {@code ncclGetErrorString}. */
    String errorString(int result);

    /** {@code ncclGetLastError} (NCCL 2.13 and later), or null where NCCL has no such function or nothing to say. */
    String lastError(long comm);
}
