package dev.jccl.reduce;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.jccl.DataType;
import dev.jccl.ReduceOp;
import dev.jccl.reduce.ReferenceArithmetic.Expected;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.MethodSource;

@Timeout(300)
class ReduceKernelsTest {

    /** Override with -Djccl.test.seed=... to reproduce a failure printed with another seed. */
    private static final long BASE_SEED = Long.getLong("jccl.test.seed", 0x5eed_0f_7e57L);

    static Stream<Arguments> everyTypeAndOp() {
        return Arrays.stream(DataType.values())
                .flatMap(type -> Arrays.stream(ReduceOp.values()).map(op -> Arguments.of(type, op)));
    }

    /**
     * The kernel families {@link ReduceKernels#forOperationBytes} picks from: {@code of} (vector, or staged through
     * L1), {@code streaming} (operands from memory) and {@code plain} (the smallest operations and the vector kernels'
     * tails; with the Vector API, {@code streaming} does not give it).
     */
    enum Family {
        OF,
        STREAMING,
        PLAIN;

        ReduceKernel kernel(DataType type, ReduceOp op) {
            return switch (this) {
                case OF -> ReduceKernels.of(type, op);
                case STREAMING -> ReduceKernels.streaming(type, op);
                case PLAIN -> ReduceKernels.plain(type, op);
            };
        }
    }

    static Stream<Arguments> everyFamilyTypeAndOp() {
        return Arrays.stream(Family.values())
                .flatMap(family -> everyTypeAndOp().map(a -> Arguments.of(family, a.get()[0], a.get()[1])));
    }

    /** Every family's kernels give the reference's results, case for case. */
    @ParameterizedTest(name = "{0} {1} {2}")
    @MethodSource("everyFamilyTypeAndOp")
    void kernelMatchesReferenceForEveryCountMemoryAndAliasing(Family family, DataType type, ReduceOp op) {
        List<String> failures = KernelChecks.everyCase(family.kernel(type, op), type, op, BASE_SEED);
        assertTrue(
                failures.isEmpty(),
                () -> String.format(
                        "%s %s %s, base seed 0x%x (-Djccl.test.seed=%d): %s",
                        family, type, op, BASE_SEED, BASE_SEED, Failures.summary(failures)));
    }

    @Test
    void operationsSmallerThanAVectorTakeThePlainLoop() {
        for (DataType type : DataType.values()) {
            for (ReduceOp op : ReduceOp.values()) {
                assertSame(
                        ReduceKernels.plain(type, op),
                        ReduceKernels.forOperationBytes(type, op, ReduceKernels.SMALL_BYTES - 1),
                        type + " " + op);
                assertSame(
                        ReduceKernels.of(type, op),
                        ReduceKernels.forOperationBytes(type, op, ReduceKernels.SMALL_BYTES),
                        type + " " + op);
            }
        }
    }

    @Test
    void operationsTooBigForTheCachesTakeTheStreamingKernels() {
        assertSame(
                ReduceKernels.of(DataType.FLOAT32, ReduceOp.SUM),
                ReduceKernels.forOperationBytes(DataType.FLOAT32, ReduceOp.SUM, ReduceKernels.STREAMING_BYTES - 1));
        assertSame(
                ReduceKernels.streaming(DataType.FLOAT32, ReduceOp.SUM),
                ReduceKernels.forOperationBytes(DataType.FLOAT32, ReduceOp.SUM, ReduceKernels.STREAMING_BYTES));
        if (ReduceKernels.vectorKernels()) {
            // One pass a vector at a time serves operands in cache and from memory alike.
            assertSame(
                    ReduceKernels.of(DataType.INT32, ReduceOp.MAX),
                    ReduceKernels.streaming(DataType.INT32, ReduceOp.MAX));
        } else {
            assertNotSame(
                    ReduceKernels.of(DataType.INT32, ReduceOp.MAX),
                    ReduceKernels.streaming(DataType.INT32, ReduceOp.MAX));
        }
    }

    /**
     * FLOAT16 SUM and PROD stream in smaller pieces than they reduce in cache (see
     * {@link NativeFloat16Kernel#STREAMING_PIECE_BYTES}); AVG streams as SUM does, MIN and MAX keep their kernels.
     */
    @Test
    void float16SumAndProdStreamThroughTheirOwnKernels() {
        for (ReduceOp op : new ReduceOp[] {ReduceOp.SUM, ReduceOp.PROD}) {
            assertNotSame(
                    ReduceKernels.of(DataType.FLOAT16, op), ReduceKernels.streaming(DataType.FLOAT16, op), "" + op);
        }
        assertSame(NativeFloat16Kernel.STREAMING_SUM, ReduceKernels.streaming(DataType.FLOAT16, ReduceOp.SUM));
        assertSame(NativeFloat16Kernel.STREAMING_SUM, ReduceKernels.streaming(DataType.FLOAT16, ReduceOp.AVG));
        assertSame(
                NativeFloat16Kernel.STREAMING_SUM,
                ReduceKernels.forOperationBytes(DataType.FLOAT16, ReduceOp.SUM, ReduceKernels.STREAMING_BYTES));
        assertSame(
                ReduceKernels.of(DataType.FLOAT16, ReduceOp.MAX),
                ReduceKernels.streaming(DataType.FLOAT16, ReduceOp.MAX));
    }

    /** The test JVM has the Vector API (the build passes the module), so the checks above ran its kernels. */
    @Test
    void theVectorKernelsRunWhereTheJvmHasTheVectorApi() {
        assertEquals(
                ModuleLayer.boot().findModule("jdk.incubator.vector").isPresent(),
                ReduceKernels.vectorKernels(),
                ReduceKernels.describe());
        if (ReduceKernels.vectorKernels()) {
            assertTrue(ReduceKernels.describe().startsWith("Vector API"), ReduceKernels.describe());
            assertTrue(
                    ReduceKernels.of(DataType.BFLOAT16, ReduceOp.SUM)
                            .getClass()
                            .getName()
                            .contains("VectorKernels"),
                    ReduceKernels.of(DataType.BFLOAT16, ReduceOp.SUM).getClass().getName());
        }
    }

    /**
     * The in-process checks run whatever the JIT has compiled by then (C2 compiles in the background), so run them
     * again in a JVM that compiles synchronously (-Xbatch): every kernel reaches C2, with whatever loop optimisations
     * and vectorisation it applies, during its warm-up.
     */
    @Test
    @Timeout(240)
    void sameResultsFromC2CompiledKernels() throws Exception {
        assertCompiledChildPassed(0, "kernels: scalar", KERNEL_METHODS);
    }

    /** The same for the Vector API kernels: C2 turns them into vector instructions, which must give the same bits. */
    @Test
    @Timeout(240)
    void sameResultsFromC2CompiledVectorKernels() throws Exception {
        assertCompiledChildPassed(1, "kernels: Vector API", VECTOR_KERNEL_METHODS);
    }

    /**
     * The -Xbatch child {@code which} of {@link #compiledKernelChildren} passed its checks, ran the kernels its
     * {@code banner} names, and had C2 compile {@code methods}.
     */
    private static void assertCompiledChildPassed(int which, String banner, List<String> methods) throws Exception {
        ChildJvm.Result child = compiledKernelChildren()[which].get(240, TimeUnit.SECONDS);
        assertEquals(0, child.exitValue(), () -> lastLines(child.output(), 60));
        assertTrue(child.output().contains(banner), () -> lastLines(child.output(), 5));
        assertCompiledByC2(child, methods);
    }

    private static CompletableFuture<ChildJvm.Result>[] compiledKernels;

    /**
     * Both -Xbatch children, started together by whichever of the two tests runs first: each spends half a minute
     * compiling on mostly one thread, so side by side they take the time of one.
     */
    @SuppressWarnings("unchecked")
    private static synchronized CompletableFuture<ChildJvm.Result>[] compiledKernelChildren() {
        if (compiledKernels == null) {
            compiledKernels = new CompletableFuture[] {
                // No Vector API in this child: the scalar kernels, staged and streaming, are what it checks.
                ChildJvm.start(
                        List.of("-Xbatch", "-XX:+PrintCompilation", "-Xmx512m"),
                        CompiledKernelsMain.class,
                        200,
                        Long.toString(BASE_SEED)),
                ChildJvm.start(
                        List.of(
                                "--add-modules",
                                "jdk.incubator.vector",
                                "-Xbatch",
                                "-XX:+PrintCompilation",
                                "-Xmx512m"),
                        CompiledKernelsMain.class,
                        200,
                        Long.toString(BASE_SEED))
            };
        }
        return compiledKernels;
    }

    private static void assertCompiledByC2(ChildJvm.Result child, List<String> methods) {
        List<String> notCompiled = new ArrayList<>();
        for (String kernel : methods) {
            Pattern c2Compile =
                    Pattern.compile("(?m)^[^%\\n]*\\s4\\s+dev\\.jccl\\.reduce\\." + Pattern.quote(kernel) + " \\(");
            if (!c2Compile.matcher(child.output()).find()) {
                notCompiled.add(kernel);
            }
        }
        assertTrue(notCompiled.isEmpty(), "not compiled by C2 (level 4) in the child JVM: " + notCompiled);
    }

    private static final List<String> VECTOR_KERNEL_METHODS = List.of(
            "VectorKernels$Int8::sum",
            "VectorKernels$Int8::prod",
            "VectorKernels$Int8::max",
            "VectorKernels$Int8::min",
            "VectorKernels$Int8::umax",
            "VectorKernels$Int8::umin",
            "VectorKernels$Int32::sum",
            "VectorKernels$Int32::prod",
            "VectorKernels$Int32::max",
            "VectorKernels$Int32::min",
            "VectorKernels$Int32::umax",
            "VectorKernels$Int32::umin",
            "VectorKernels$Int64::sum",
            "VectorKernels$Int64::prod",
            "VectorKernels$Int64::max",
            "VectorKernels$Int64::min",
            "VectorKernels$Int64::umax",
            "VectorKernels$Int64::umin",
            "VectorKernels$Fp16::max",
            "VectorKernels$Fp16::min",
            "VectorKernels$Bf16::sum",
            "VectorKernels$Bf16::prod",
            "VectorKernels$Bf16::max",
            "VectorKernels$Bf16::min",
            "VectorKernels$Fp32::sum",
            "VectorKernels$Fp32::prod",
            "VectorKernels$Fp32::max",
            "VectorKernels$Fp32::min",
            "VectorKernels$Fp64::sum",
            "VectorKernels$Fp64::prod",
            "VectorKernels$Fp64::max",
            "VectorKernels$Fp64::min");

    private static final List<String> KERNEL_METHODS = List.of(
            "IntegerKernels$Int8::sum",
            "IntegerKernels$Int8::prod",
            "IntegerKernels$Int8::max",
            "IntegerKernels$Int8::min",
            "IntegerKernels$Uint8::max",
            "IntegerKernels$Uint8::min",
            "IntegerKernels$Int32::sum",
            "IntegerKernels$Int32::prod",
            "IntegerKernels$Int32::max",
            "IntegerKernels$Int32::min",
            "IntegerKernels$Uint32::max",
            "IntegerKernels$Uint32::min",
            "IntegerKernels$Int64::sum",
            "IntegerKernels$Int64::prod",
            "IntegerKernels$Int64::max",
            "IntegerKernels$Int64::min",
            "IntegerKernels$Uint64::max",
            "IntegerKernels$Uint64::min",
            "FloatKernels$Fp16::sum",
            "FloatKernels$Fp16::prod",
            "FloatKernels$Fp16::max",
            "FloatKernels$Fp16::min",
            "BFloat16PairKernel::split",
            "BFloat16PairKernel::narrow",
            "FloatKernels$Fp32::sum",
            "FloatKernels$Fp32::prod",
            "FloatKernels$Fp32::max",
            "FloatKernels$Fp32::min",
            "FloatKernels$Fp64::sum",
            "FloatKernels$Fp64::prod",
            "FloatKernels$Fp64::max",
            "FloatKernels$Fp64::min");

    private static String lastLines(String text, int lines) {
        String[] all = text.split("\\n");
        return String.join("\n", Arrays.asList(all).subList(Math.max(0, all.length - lines), all.length));
    }

    /**
     * ChunkedKernel streams through per-thread scratch arrays: threads sharing one kernel at once must each get their
     * own result, over heap and native memory alike.
     */
    @Test
    void oneKernelOnManyThreadsAtOnce() throws Exception {
        ReduceKernel kernel = ReduceKernels.of(DataType.FLOAT32, ReduceOp.SUM);
        int threads = 4;
        int count = 3 * ChunkedKernel.CHUNK_BYTES / Float.BYTES + 5;
        List<Callable<String>> tasks = new ArrayList<>();
        for (int t = 0; t < threads; t++) {
            int thread = t;
            tasks.add(() -> {
                try (Arena arena = Arena.ofConfined()) {
                    MemorySegment a = MemorySegment.ofArray(new float[count]);
                    MemorySegment b = thread % 2 == 0
                            ? arena.allocate((long) count * Float.BYTES)
                            : MemorySegment.ofArray(new float[count]);
                    MemorySegment dst = thread % 2 == 0
                            ? MemorySegment.ofArray(new float[count])
                            : arena.allocate((long) count * Float.BYTES);
                    for (int i = 0; i < count; i++) {
                        a.setAtIndex(ValueLayout.JAVA_FLOAT, i, i);
                        b.setAtIndex(ValueLayout.JAVA_FLOAT, i, 1_000_000f * thread);
                    }
                    for (int round = 0; round < 200; round++) {
                        kernel.apply(a, 0, b, 0, dst, 0, count);
                        for (int i = 0; i < count; i++) {
                            float got = dst.getAtIndex(ValueLayout.JAVA_FLOAT, i);
                            if (got != i + 1_000_000f * thread) {
                                return "thread " + thread + " round " + round + " element " + i + ": " + got;
                            }
                        }
                    }
                    return null;
                }
            });
        }
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        try {
            for (Future<String> result : pool.invokeAll(tasks)) {
                String failure = result.get();
                assertTrue(failure == null, failure);
            }
        } finally {
            pool.shutdownNow();
        }
    }

    @Test
    void everyTypeAndOpHasAKernelAndAvgReusesSum() {
        for (DataType type : DataType.values()) {
            for (ReduceOp op : ReduceOp.values()) {
                assertNotNull(ReduceKernels.of(type, op), type + " " + op);
            }
            assertSame(ReduceKernels.of(type, ReduceOp.SUM), ReduceKernels.of(type, ReduceOp.AVG), type.toString());
            assertSame(ReduceKernels.of(type, ReduceOp.MAX), ReduceKernels.of(type, ReduceOp.MAX), "of() is a lookup");
        }
        assertThrows(NullPointerException.class, () -> ReduceKernels.of(null, ReduceOp.SUM));
        assertThrows(NullPointerException.class, () -> ReduceKernels.of(DataType.INT8, null));
    }

    /** The semantics the class javadoc promises, on values picked by hand. */
    @ParameterizedTest(name = "{0} {1}(0x{2}, 0x{3}) = {4}: {5}")
    @CsvSource({
        "UINT8,    MAX,  ff,               01,               ff,               unsigned: 255 > 1",
        "INT8,     MAX,  ff,               01,               01,               signed: -1 < 1",
        "UINT8,    MIN,  80,               7f,               7f,               unsigned",
        "INT8,     MIN,  80,               7f,               80,               signed",
        "UINT32,   MIN,  80000000,         7fffffff,         7fffffff,         unsigned",
        "INT32,    MIN,  80000000,         7fffffff,         80000000,         signed",
        "UINT64,   MAX,  ffffffffffffffff, 0,                ffffffffffffffff, unsigned",
        "INT64,    MAX,  ffffffffffffffff, 0,                0,                signed",
        "INT32,    SUM,  7fffffff,         1,                80000000,         sums wrap",
        "UINT8,    SUM,  ff,               02,               01,               sums wrap",
        "INT8,     PROD, 10,               10,               00,               products wrap",
        "INT64,    PROD, 8000000000000000, ffffffffffffffff, 8000000000000000, MIN_VALUE * -1 wraps",
        "INT32,    AVG,  7fffffff,         1,                80000000,         AVG is SUM before the division",
        "FLOAT32,  MAX,  7fc00000,         3f800000,         NaN,              NaN propagates (unlike fmaxf)",
        "FLOAT32,  MAX,  3f800000,         7fc00000,         NaN,              from either side",
        "FLOAT64,  MIN,  3ff0000000000000, 7ff8000000000000, NaN,              NaN propagates (unlike fmin)",
        "FLOAT32,  MIN,  00000000,         80000000,         80000000,         -0 is below +0",
        "FLOAT32,  MAX,  80000000,         00000000,         00000000,         +0 is above -0",
        "FLOAT64,  MAX,  8000000000000000, 0000000000000000, 0000000000000000, +0 is above -0",
        "FLOAT16,  MIN,  0000,             8000,             8000,             -0 is below +0",
        "BFLOAT16, MAX,  8000,             0000,             0000,             +0 is above -0",
        "FLOAT16,  SUM,  3c00,             3c00,             4000,             1 + 1 = 2",
        "FLOAT16,  SUM,  7bff,             2000,             7bff,             65504 + 2^-7 rounds back to 65504",
        "FLOAT16,  SUM,  7bff,             4800,             7bff,             65504 + 8 rounds back to 65504",
        "FLOAT16,  SUM,  7bff,             4c00,             7c00,             "
                + "65504 + 16 = 65520 is the tie that overflows",
        "FLOAT16,  SUM,  7bff,             5000,             7c00,             65504 + 32 overflows to infinity",
        "FLOAT16,  PROD, 0001,             3800,             0000,             "
                + "2^-24 * 0.5 is a tie: rounds to the even 0",
        "FLOAT16,  PROD, 0003,             3800,             0002,             "
                + "3 * 2^-25 is a tie: rounds to the even 2 * 2^-24",
        "FLOAT16,  MAX,  7c01,             3c00,             NaN,              a signalling NaN comes out quiet",
        "BFLOAT16, SUM,  3f80,             3b80,             3f80,             1 + 2^-8 is a tie: rounds to the even 1",
        "BFLOAT16, SUM,  3f81,             3b80,             3f82,             "
                + "(1 + 2^-7) + 2^-8 is a tie: rounds to the even 1 + 2^-6",
        "BFLOAT16, PROD, 7f7f,             4000,             7f80,             max * 2 overflows to infinity",
        "FLOAT32,  SUM,  7f800000,         ff800000,         NaN,              inf + -inf",
        "FLOAT64,  PROD, 7ff0000000000000, 0000000000000000, NaN,              inf * 0",
    })
    void documentedSemantics(DataType type, ReduceOp op, String aHex, String bHex, String expectedHex, String why) {
        long a = Long.parseUnsignedLong(aHex, 16);
        long b = Long.parseUnsignedLong(bHex, 16);
        for (ReduceKernel kernel : List.of(ReduceKernels.of(type, op), ReduceKernels.streaming(type, op))) {
            long actual = applyToOneElement(kernel, type, a, b);
            if (expectedHex.equals("NaN")) {
                assertTrue(
                        ReferenceArithmetic.matches(type, Expected.NAN, actual),
                        why + ": expected a NaN (quiet for the 16-bit types), got 0x" + Long.toHexString(actual));
            } else {
                assertEquals(Long.parseUnsignedLong(expectedHex, 16), actual, why);
            }
        }
    }

    private static long applyToOneElement(ReduceKernel kernel, DataType type, long a, long b) {
        int width = type.byteSize();
        byte[] aImage = new byte[8];
        byte[] bImage = new byte[8];
        TestBuffers.writeElement(aImage, 0, width, 0, a);
        TestBuffers.writeElement(bImage, 0, width, 0, b);
        MemorySegment dst = MemorySegment.ofArray(new byte[8]);
        kernel.apply(MemorySegment.ofArray(aImage), 0, MemorySegment.ofArray(bImage), 0, dst, 0, 1);
        return TestBuffers.readElement(TestBuffers.bytesOf(dst), 0, width, 0);
    }
}
