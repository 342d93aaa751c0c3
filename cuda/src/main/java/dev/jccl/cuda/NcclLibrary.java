package dev.jccl.cuda;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.StructLayout;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;

/**
 * NCCL ({@code libnccl.so.2}) bound through the Foreign Function &amp; Memory API, found at run time:
 * {@value #LIBRARY_VARIABLE} names the file; else the dynamic loader's {@code libnccl.so.2}, then
 * {@code /usr/local/cuda} and pip's {@code site-packages/nvidia/nccl/lib} (where PyTorch's wheels put it). Each
 * function is bound on first call, so an older NCCL fails only the feature it lacks, in a sentence.
 */
@SuppressWarnings("restricted") // binding native libraries is what this class is for
final class NcclLibrary implements NcclApi {
    /** Names the libnccl file to load, instead of searching. */
    static final String LIBRARY_VARIABLE = "JCCL_NCCL_LIB";

    /** NCCL 2.7.0 (old version encoding): the first with ncclSend/ncclRecv. */
    static final int MIN_VERSION = 2700;

    static final NativeLibraries.Search SEARCH = new NativeLibraries.Search(
            LIBRARY_VARIABLE,
            List.of("libnccl.so.2", "libnccl.so"),
            List.of("/usr/local/cuda/lib64", "/usr/local/nccl/lib", "/opt/nccl/lib"),
            List.of("nvidia/nccl/lib/libnccl.so.2"));

    static final String INSTALL =
            "install NCCL (apt-get install libnccl2 from NVIDIA's CUDA repository), or point " + LIBRARY_VARIABLE
                    + " at a libnccl.so.2: PyTorch's pip wheels ship one at site-packages/nvidia/nccl/lib/libnccl.so.2";

    /** {@code ncclUniqueId}: {@code struct { char internal[128]; }}, passed by value to ncclCommInitRank. */
    static final StructLayout UNIQUE_ID = MemoryLayout.structLayout(
            MemoryLayout.sequenceLayout(NcclTypes.UNIQUE_ID_BYTES, JAVA_BYTE).withName("internal"));

    private static final Map<String, NcclLibrary> LOADED = new ConcurrentHashMap<>();
    private static final ThreadLocal<MemorySegment> OUT =
            ThreadLocal.withInitial(() -> Arena.ofAuto().allocate(8, 8));
    private static final ThreadLocal<MemorySegment> ID =
            ThreadLocal.withInitial(() -> Arena.ofAuto().allocate(UNIQUE_ID));

    private final String library;
    private final int version;
    private final NativeFunction getVersion;
    private final NativeFunction getUniqueId;
    private final NativeFunction commInitRank;
    private final NativeFunction allReduce;
    private final NativeFunction broadcast;
    private final NativeFunction reduce;
    private final NativeFunction allGather;
    private final NativeFunction reduceScatter;
    private final NativeFunction send;
    private final NativeFunction recv;
    private final NativeFunction groupStart;
    private final NativeFunction groupEnd;
    private final NativeFunction commGetAsyncError;
    private final NativeFunction commAbort;
    private final NativeFunction commDestroy;
    private final NativeFunction getErrorString;
    private final NativeFunction getLastError;

    private NcclLibrary(NativeLibraries.Loaded lib) {
        this.library = lib.name();
        Function<String, RuntimeException> missing = why -> new NcclUnavailableException(
                why + ": not NCCL, or an NCCL too old for Jccl (2.7 or newer); " + INSTALL);
        var bind = new NativeFunction.Binder(lib.lookup(), library, missing);
        getVersion = bind.returningInt("ncclGetVersion", JAVA_LONG);
        getUniqueId = bind.returningInt("ncclGetUniqueId", JAVA_LONG);
        commInitRank = bind.returningInt("ncclCommInitRank", JAVA_LONG, JAVA_INT, UNIQUE_ID, JAVA_INT);
        allReduce = bind.returningInt(
                "ncclAllReduce", JAVA_LONG, JAVA_LONG, JAVA_LONG, JAVA_INT, JAVA_INT, JAVA_LONG, JAVA_LONG);
        broadcast = bind.returningInt(
                "ncclBroadcast", JAVA_LONG, JAVA_LONG, JAVA_LONG, JAVA_INT, JAVA_INT, JAVA_LONG, JAVA_LONG);
        reduce = bind.returningInt(
                "ncclReduce", JAVA_LONG, JAVA_LONG, JAVA_LONG, JAVA_INT, JAVA_INT, JAVA_INT, JAVA_LONG, JAVA_LONG);
        allGather = bind.returningInt("ncclAllGather", JAVA_LONG, JAVA_LONG, JAVA_LONG, JAVA_INT, JAVA_LONG, JAVA_LONG);
        reduceScatter = bind.returningInt(
                "ncclReduceScatter", JAVA_LONG, JAVA_LONG, JAVA_LONG, JAVA_INT, JAVA_INT, JAVA_LONG, JAVA_LONG);
        send = bind.returningInt("ncclSend", JAVA_LONG, JAVA_LONG, JAVA_INT, JAVA_INT, JAVA_LONG, JAVA_LONG);
        recv = bind.returningInt("ncclRecv", JAVA_LONG, JAVA_LONG, JAVA_INT, JAVA_INT, JAVA_LONG, JAVA_LONG);
        groupStart = bind.returningInt("ncclGroupStart");
        groupEnd = bind.returningInt("ncclGroupEnd");
        commGetAsyncError = bind.returningInt("ncclCommGetAsyncError", JAVA_LONG, JAVA_LONG);
        commAbort = bind.returningInt("ncclCommAbort", JAVA_LONG);
        commDestroy = bind.returningInt("ncclCommDestroy", JAVA_LONG);
        getErrorString = bind.function("ncclGetErrorString", FunctionDescriptor.of(ADDRESS, JAVA_INT));
        getLastError = bind.function("ncclGetLastError", FunctionDescriptor.of(ADDRESS, JAVA_LONG));
        this.version = readVersion();
    }

    /**
     * Finds and loads NCCL as {@code env} says, checks its version; throws {@link NcclUnavailableException} naming what
     * was tried and what to install.
     */
    static NcclLibrary load(Map<String, String> env) {
        NativeLibraries.Loaded lib;
        try {
            lib = NativeLibraries.load(SEARCH, env);
        } catch (NativeLibraries.NotFound e) {
            throw new NcclUnavailableException("NCCL not found (" + e.getMessage() + "): " + INSTALL, e);
        } catch (IllegalCallerException e) {
            throw new NcclUnavailableException(
                    "native access is denied to Jccl; run java with --enable-native-access=ALL-UNNAMED", e);
        }
        NcclLibrary nccl = LOADED.computeIfAbsent(lib.name(), n -> new NcclLibrary(lib));
        if (nccl.version < MIN_VERSION) {
            throw new NcclUnavailableException(lib.name() + " is NCCL " + NcclTypes.version(nccl.version)
                    + "; Jccl needs 2.7 or newer (ncclSend/ncclRecv): " + INSTALL);
        }
        return nccl;
    }

    private int readVersion() {
        MemorySegment out = OUT.get();
        out.set(JAVA_INT, 0, 0);
        int rc = getVersion.call(h -> (int) h.invokeExact(out.address()));
        if (rc != NcclTypes.SUCCESS) {
            throw new NcclUnavailableException(library + ": ncclGetVersion failed with " + NcclTypes.resultName(rc));
        }
        return out.get(JAVA_INT, 0);
    }

    @Override
    public int version() {
        return version;
    }

    @Override
    public String library() {
        return library;
    }

    @Override
    public int getUniqueId(byte[] id) {
        MemorySegment seg = ID.get();
        int rc = getUniqueId.call(h -> (int) h.invokeExact(seg.address()));
        MemorySegment.copy(seg, JAVA_BYTE, 0, id, 0, NcclTypes.UNIQUE_ID_BYTES);
        return rc;
    }

    @Override
    public int commInitRank(long[] comm, int nranks, byte[] id, int rank) {
        MemorySegment seg = ID.get();
        MemorySegment.copy(id, 0, seg, JAVA_BYTE, 0, NcclTypes.UNIQUE_ID_BYTES);
        MemorySegment out = OUT.get();
        out.set(JAVA_LONG, 0, 0);
        int rc = commInitRank.call(h -> (int) h.invokeExact(out.address(), nranks, seg, rank));
        comm[0] = out.get(JAVA_LONG, 0);
        return rc;
    }

    @Override
    public int allReduce(long sendBuf, long recvBuf, long count, int type, int op, long comm, long stream) {
        return allReduce.call(h -> (int) h.invokeExact(sendBuf, recvBuf, count, type, op, comm, stream));
    }

    @Override
    public int broadcast(long sendBuf, long recvBuf, long count, int type, int root, long comm, long stream) {
        return broadcast.call(h -> (int) h.invokeExact(sendBuf, recvBuf, count, type, root, comm, stream));
    }

    @Override
    public int reduce(long sendBuf, long recvBuf, long count, int type, int op, int root, long comm, long stream) {
        return reduce.call(h -> (int) h.invokeExact(sendBuf, recvBuf, count, type, op, root, comm, stream));
    }

    @Override
    public int allGather(long sendBuf, long recvBuf, long sendCount, int type, long comm, long stream) {
        return allGather.call(h -> (int) h.invokeExact(sendBuf, recvBuf, sendCount, type, comm, stream));
    }

    @Override
    public int reduceScatter(long sendBuf, long recvBuf, long recvCount, int type, int op, long comm, long stream) {
        return reduceScatter.call(h -> (int) h.invokeExact(sendBuf, recvBuf, recvCount, type, op, comm, stream));
    }

    @Override
    public int send(long buf, long count, int type, int peer, long comm, long stream) {
        return send.call(h -> (int) h.invokeExact(buf, count, type, peer, comm, stream));
    }

    @Override
    public int recv(long buf, long count, int type, int peer, long comm, long stream) {
        return recv.call(h -> (int) h.invokeExact(buf, count, type, peer, comm, stream));
    }

    @Override
    public int groupStart() {
        return groupStart.call(h -> (int) h.invokeExact());
    }

    @Override
    public int groupEnd() {
        return groupEnd.call(h -> (int) h.invokeExact());
    }

    @Override
    public int commGetAsyncError(long comm, int[] error) {
        MemorySegment out = OUT.get();
        out.set(JAVA_INT, 0, 0);
        int rc = commGetAsyncError.call(h -> (int) h.invokeExact(comm, out.address()));
        error[0] = out.get(JAVA_INT, 0);
        return rc;
    }

    @Override
    public int commAbort(long comm) {
        return commAbort.call(h -> (int) h.invokeExact(comm));
    }

    @Override
    public int commDestroy(long comm) {
        return commDestroy.call(h -> (int) h.invokeExact(comm));
    }

    @Override
    public String errorString(int result) {
        return getErrorString.callForString(h -> (MemorySegment) h.invokeExact(result));
    }

    @Override
    public String lastError(long comm) {
        if (!getLastError.exists()) return null;
        String text = getLastError.callForString(h -> (MemorySegment) h.invokeExact(comm));
        return text == null || text.isBlank() ? null : text;
    }
}
