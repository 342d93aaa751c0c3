package dev.jccl.cuda;

import java.util.Locale;

/** How a communicator with a GPU attached ({@link CudaSupport}) moves device buffers. */
public enum DevicePath {
    /**
     * Pipelined copies through pinned host memory and the host communicator (works with any GPU, any number of ranks
     * per GPU).
     */
    STAGED,
    /** NCCL through FFM, on the GPUs (one GPU per rank). */
    NCCL;

    /** Names {@link #STAGED} or {@link #NCCL} (or AUTO, to let Jccl choose). */
    public static final String VARIABLE = "JCCL_CUDA_PATH";

    /** What {@value #VARIABLE} asks for. */
    public enum Request {
        /** NCCL where every rank can use it and each has its own GPU, else staged. */
        AUTO,
        /** Always {@link DevicePath#STAGED}, even where NCCL could be used. */
        STAGED,
        /**
         * {@link DevicePath#NCCL}; attaching fails on every rank when some rank cannot load NCCL or two ranks share a
         * GPU.
         */
        NCCL;

        /** Parses {@code auto}, {@code staged} or {@code nccl} (any case); null or blank is AUTO. */
        public static Request parse(String value) {
            if (value == null || value.isBlank()) return AUTO;
            try {
                return valueOf(value.trim().toUpperCase(Locale.ROOT));
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException(
                        VARIABLE + "='" + value + "' is not a path; use auto, staged or nccl");
            }
        }

        /** The setting as the variable spells it. */
        public String spelling() {
            return name().toLowerCase(Locale.ROOT);
        }
    }
}
