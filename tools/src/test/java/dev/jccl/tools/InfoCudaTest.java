package dev.jccl.tools;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The cuda line of {@code jccl info}: where GPU buffers cannot be used, why; the rest of the report is unaffected. */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class InfoCudaTest {
    @Test
    void aMissingCudaRuntimeIsOneLineWithWhatToDo() {
        Cli.Result r = Cli.inProcess(Cli.environment("JCCL_CUDA_LIB", "/nonexistent/libcudart.so.12"), "info");
        assertEquals(0, r.code(), r::toString);
        assertTrue(
                r.out()
                        .contains("\n  cuda  not available: no CUDA runtime: "
                                + "libcudart not found (JCCL_CUDA_LIB=/nonexistent/libcudart.so.12: "
                                + "no such file); install the CUDA toolkit or runtime"),
                r::toString);
        assertTrue(r.out().contains("; host collectives are not affected\n\ncompute\n"), r::toString);
    }

    @Test
    void aMalformedPathChoiceIsNamed() {
        Cli.Result r = Cli.inProcess(Cli.environment("JCCL_CUDA_PATH", "gpu"), "info");
        // JCCL_CUDA_PATH is read only where CUDA can be used; elsewhere the line says why not, and info succeeds.
        assertTrue(
                r.code() == 0
                        || r.err().equals("jccl info: JCCL_CUDA_PATH='gpu' is not a path; use auto, staged or nccl\n"),
                r::toString);
    }
}
