package dev.jccl.cuda;

import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;
import static org.junit.jupiter.api.Assertions.fail;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.SymbolLookup;
import java.lang.invoke.MethodHandle;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * Builds the fake libcudart and libnccl ({@code src/test/c}) with the system C compiler, so that the real FFM bindings
 * can be called where there is no GPU; tests that use them are skipped, saying so, where there is no compiler. Also
 * reaches the fakes' test hooks.
 */
@SuppressWarnings("restricted") // binding native libraries is what this class is for
final class FakeLibraries {
    private FakeLibraries() {}

    static Path cudart() {
        return build("fake_cudart", "libcudart-fake.so");
    }

    static Path nccl() {
        return build("fake_nccl", "libnccl-fake.so");
    }

    /** An environment (the process's, minus CUDA/NCCL settings) with the fakes named. */
    static Map<String, String> environment(boolean withNccl) {
        Map<String, String> env = new HashMap<>(System.getenv());
        env.keySet().removeIf(k -> k.startsWith("JCCL_") || k.startsWith("NCCL_") || k.equals("CUDA_VISIBLE_DEVICES"));
        env.put(CudaRuntime.LIBRARY_VARIABLE, cudart().toString());
        if (withNccl) env.put(NcclLibrary.LIBRARY_VARIABLE, nccl().toString());
        else env.put(NcclLibrary.LIBRARY_VARIABLE, "/nonexistent/libnccl.so.2");
        return env;
    }

    private static synchronized Path build(String source, String library) {
        Path src = Path.of("src", "test", "c", source + ".c").toAbsolutePath();
        assumeTrue(
                Files.isRegularFile(src),
                "the fake library's source " + src + " is not here (run the tests from the cuda module)");
        Path out = Path.of("target", "fake-libs", library).toAbsolutePath();
        try {
            if (Files.exists(out) && Files.getLastModifiedTime(out).compareTo(Files.getLastModifiedTime(src)) >= 0) {
                return out;
            }
            Files.createDirectories(out.getParent());
            Process p;
            try {
                p = new ProcessBuilder("cc", "-shared", "-fPIC", "-O1", "-o", out.toString(), src.toString())
                        .redirectErrorStream(true)
                        .start();
            } catch (IOException e) {
                assumeTrue(
                        false,
                        "no C compiler (cc) on PATH, so the fake libcudart/libnccl that test the "
                                + "FFM bindings without a GPU cannot be built: " + e.getMessage());
                throw new AssertionError(e);
            }
            String log = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            if (!p.waitFor(60, TimeUnit.SECONDS) || p.exitValue() != 0) {
                fail("cc could not build " + library + ":\n" + log);
            }
            return out;
        } catch (IOException | InterruptedException e) {
            throw new AssertionError("building " + library + ": " + e, e);
        }
    }

    private static MethodHandle hook(Path library, String name, FunctionDescriptor d) {
        SymbolLookup lib = SymbolLookup.libraryLookup(library, Arena.global());
        return Linker.nativeLinker().downcallHandle(lib.find(name).orElseThrow(), d);
    }

    /** {@code fake_cuda_set}: 0 busy (queries say not ready), 1 error code of the next async copy, 2 device count. */
    static void cudaSet(int what, int value) {
        try {
            int unused = (int) hook(cudart(), "fake_cuda_set", FunctionDescriptor.of(JAVA_INT, JAVA_INT, JAVA_INT))
                    .invokeExact(what, value);
        } catch (Throwable t) {
            throw new AssertionError(t);
        }
    }

    /**
     * {@code fake_cuda_get}: 0 async copies so far, 1 last copy kind, 2 current device, 3 live allocations, 4 bytes
     * that cudaPointerGetAttributes writes.
     */
    static long cudaGet(int what) {
        return counter(cudart(), "fake_cuda_get", what);
    }

    /** {@code fake_nccl_set}: 0 version code (read when first loaded), 1 asynchronous error to report. */
    static void ncclSet(int what, long value) {
        try {
            hook(nccl(), "fake_nccl_set", FunctionDescriptor.ofVoid(JAVA_INT, JAVA_LONG))
                    .invokeExact(what, value);
        } catch (Throwable t) {
            throw new AssertionError(t);
        }
    }

    /**
     * {@code fake_nccl_get}: 0-7 the last call (call, count, datatype, op, root/peer, stream, nranks, rank; calls are 1
     * AllReduce, 2 Broadcast, 3 Reduce, 4 AllGather, 5 ReduceScatter, 6 Send, 7 Recv), 8 ids made, 9 inits, 10 ids that
     * reached ncclCommInitRank changed, 11 aborts, 12 destroys, 13 groups.
     */
    static long ncclGet(int what) {
        return counter(nccl(), "fake_nccl_get", what);
    }

    /** Calls {@code long function(int what)} of the fake {@code library}: the fakes' way of reporting what they saw. */
    private static long counter(Path library, String function, int what) {
        try {
            return (long) hook(library, function, FunctionDescriptor.of(JAVA_LONG, JAVA_INT))
                    .invokeExact(what);
        } catch (Throwable t) {
            throw new AssertionError(t);
        }
    }
}
