package dev.jccl.cuda;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeFalse;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** Without CUDA or NCCL, what is missing is a sentence naming what was tried and what to install, never a crash. */
@Timeout(20)
class MissingLibrariesTest {
    /** A shared library every JDK has, which is neither libcudart nor libnccl. */
    private static final String NOT_CUDA =
            Path.of(System.getProperty("java.home"), "lib", "libjava.so").toString();

    private static Map<String, String> env(String... pairs) {
        Map<String, String> env = new HashMap<>();
        for (int i = 0; i < pairs.length; i += 2) env.put(pairs[i], pairs[i + 1]);
        return env;
    }

    @Test
    void noLibcudartNamesTheNamesTriedAndTheVariable() {
        CudaProbe p = CudaRuntime.probe(env());
        assumeFalse(
                p.available() || p.library() != null,
                "this machine has a libcudart (" + p.library() + "), so its absence cannot be shown "
                        + "here (realLibcudartWithoutAGpuSaysWhy covers that case)");
        assertFalse(p.available());
        String why = p.reason();
        assertStartsWith(
                "no CUDA runtime: libcudart not found (tried libcudart.so, libcudart.so.13, "
                        + "libcudart.so.12, libcudart.so.11.0",
                why);
        assertTrue(why.contains("JCCL_CUDA_LIB may name the file"), why);
        assertTrue(why.contains("pip install torch"), why);
        CudaStatus status = CudaStatus.probe(env());
        assertFalse(status.available());
        assertStartsWith("not available: no CUDA runtime: libcudart not found", status.detail());
        assertTrue(status.detail().endsWith("; host collectives are not affected"), status.detail());
    }

    /**
     * Where a CUDA runtime is installed but no GPU or driver is usable (a build machine), the real library is bound and
     * says why.
     */
    @Test
    void realLibcudartWithoutAGpuSaysWhy() {
        CudaProbe p = CudaRuntime.probe(env());
        assumeTrue(
                p.library() != null && !p.available(),
                p.available() ? "this machine has a usable GPU" : "this machine has no libcudart");
        assertTrue(p.runtimeVersion() >= 11000, "cudaRuntimeGetVersion through FFM: " + p.runtimeVersion());
        assertTrue(
                p.reason()
                                .startsWith("no NVIDIA driver: the CUDA " + CudaRuntime.version(p.runtimeVersion())
                                        + " runtime at " + p.library())
                        || p.reason().startsWith("no CUDA device visible")
                        || p.reason().startsWith("the NVIDIA driver supports CUDA up to"),
                p.reason());
        CudaRuntime rt = CudaRuntime.load(env());
        assertEquals(
                "cudaErrorInvalidValue (invalid argument)", rt.describeError(1), "cudaGetErrorName/String through FFM");
        assertOpeningDeviceMemoryFailsWith(p.reason(), env());
    }

    /** Device memory cannot be opened under {@code env}, and the exception gives the probe's {@code reason} exactly. */
    static void assertOpeningDeviceMemoryFailsWith(String reason, Map<String, String> env) {
        CudaUnavailableException e = assertThrows(CudaUnavailableException.class, () -> CudaDeviceMemory.open(0, env));
        assertEquals(reason, e.getMessage());
    }

    @Test
    void aNamedLibcudartThatIsNotThereSaysSo() {
        Map<String, String> missing = env("JCCL_CUDA_LIB", "/nonexistent/libcudart.so.12");
        CudaUnavailableException e = assertThrows(CudaUnavailableException.class, () -> CudaRuntime.load(missing));
        assertStartsWith(
                "no CUDA runtime: libcudart not found (JCCL_CUDA_LIB=/nonexistent/libcudart.so.12: "
                        + "no such file); install ",
                e.getMessage());
        assertOpeningDeviceMemoryFailsWith(e.getMessage(), missing);
    }

    @Test
    void aLibraryThatIsNotCudaSaysSo() {
        CudaUnavailableException e =
                assertThrows(CudaUnavailableException.class, () -> CudaRuntime.load(env("JCCL_CUDA_LIB", NOT_CUDA)));
        assertStartsWith(
                NOT_CUDA + " has no cudaGetDeviceCount/cudaGetErrorString: it is not the CUDA runtime; ",
                e.getMessage());
    }

    /**
     * Where several candidates load, the first one the caller accepts wins (a runtime the driver supports), else the
     * first found.
     */
    @Test
    void theFirstUsableCandidateIsTaken() throws Exception {
        NativeLibraries.Search search = new NativeLibraries.Search(
                "JCCL_TEST_LIB",
                java.util.List.of("libnosuch.so.9", "libz.so.1", "libm.so.6"),
                java.util.List.of(),
                java.util.List.of());
        assertEquals(
                "libm.so.6",
                NativeLibraries.load(search, env(), lib -> lib.name().equals("libm.so.6"))
                        .name());
        assertEquals(
                "libz.so.1", NativeLibraries.load(search, env(), lib -> false).name());
        assertEquals(
                NOT_CUDA,
                NativeLibraries.load(search, env("JCCL_TEST_LIB", NOT_CUDA), lib -> false)
                        .name(),
                "a named library is the only one tried");
    }

    @Test
    void aNamedLibncclThatIsNotThereSaysWhatToInstall() {
        NcclUnavailableException e = assertThrows(
                NcclUnavailableException.class,
                () -> NcclLibrary.load(env("JCCL_NCCL_LIB", "/nonexistent/libnccl.so.2")));
        assertEquals(
                "NCCL not found (JCCL_NCCL_LIB=/nonexistent/libnccl.so.2: no such file): "
                        + "install NCCL (apt-get install libnccl2 from NVIDIA's CUDA "
                        + "repository), or point JCCL_NCCL_LIB at a libnccl.so.2: PyTorch's pip wheels ship one at "
                        + "site-packages/nvidia/nccl/lib/libnccl.so.2",
                e.getMessage());
    }

    @Test
    void noLibncclAnywhereListsWhereItLooked() {
        NcclUnavailableException e;
        try {
            NcclLibrary.load(env());
            return; // this machine has NCCL; nothing to show
        } catch (NcclUnavailableException x) {
            e = x;
        }
        assertStartsWith(
                "NCCL not found (tried libnccl.so.2, libnccl.so (the dynamic loader's path: "
                        + "LD_LIBRARY_PATH and ldconfig), /usr/local/cuda/lib64",
                e.getMessage());
        assertTrue(e.getMessage().contains("site-packages/nvidia/nccl/lib of "), e.getMessage());
    }

    @Test
    void aLibraryThatIsNotNcclNamesTheMissingFunction() {
        NcclUnavailableException e =
                assertThrows(NcclUnavailableException.class, () -> NcclLibrary.load(env("JCCL_NCCL_LIB", NOT_CUDA)));
        assertStartsWith(
                NOT_CUDA + " has no function ncclGetVersion: not NCCL, or an NCCL too old for Jccl "
                        + "(2.7 or newer); install NCCL",
                e.getMessage());
    }

    private static void assertStartsWith(String prefix, String actual) {
        assertTrue(actual.startsWith(prefix), actual);
    }
}
