package dev.jccl.reduce;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.lang.reflect.Method;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.ArgumentsProvider;
import org.junit.jupiter.params.provider.ArgumentsSource;

/**
 * The exhaustive and random conversion checks that every 16-bit float format must pass; {@link Float16Test} and
 * {@link BFloat16Test} inherit them for their own format. Each format's hand-computed cases, independent of the
 * reference model too, are its own tables beside the test class: {@code <TestClass>.fromFloatOfEdgeCases.csv} and
 * {@code <TestClass>.toFloatOfEdgeCases.csv}.
 */
@Timeout(60)
abstract class SmallFloatConversionContract {

    private final ConversionChecks.Conversion format;
    private final long seed;

    /** The random checks use {@code defaultSeed} unless {@code -Djccl.test.seed=...} asks for another. */
    SmallFloatConversionContract(ConversionChecks.Conversion format, long defaultSeed) {
        this.format = format;
        this.seed = Long.getLong("jccl.test.seed", defaultSeed);
    }

    final long seed() {
        return seed;
    }

    @Test
    void toFloatOfEveryPatternIsItsExactValue() {
        assertNoFailures(ConversionChecks.toFloatOfEveryPattern(format), "");
    }

    @Test
    void fromFloatInvertsToFloatForEveryPattern() {
        assertNoFailures(ConversionChecks.roundTripOfEveryPattern(format), "");
    }

    @Test
    void fromFloatRoundsToNearestEvenAtEveryBoundary() {
        assertNoFailures(ConversionChecks.fromFloatAtEveryRoundingBoundary(format), "");
    }

    @Test
    void fromFloatOfRandomFloatsMatchesReference() {
        assertNoFailures(
                ConversionChecks.fromFloatOfRandomFloats(format, seed, 400_000),
                "seed 0x" + Long.toHexString(seed) + ": ");
    }

    /** A hand-computed case: fromFloat of the float with bits {@code floatHex} is the pattern {@code expectedHex}. */
    @ParameterizedTest(name = "{2}: fromFloat(0x{0}) = 0x{1}")
    @ArgumentsSource(OwnTable.class)
    void fromFloatOfEdgeCases(String floatHex, String expectedHex, String what) {
        float f = Float.intBitsToFloat(Integer.parseUnsignedInt(floatHex, 16));
        assertEquals(Integer.parseInt(expectedHex, 16), format.fromFloat().apply(f) & 0xffff, what);
    }

    /** A hand-computed case: toFloat of the pattern {@code bitsHex} is the float with bits {@code floatHex}. */
    @ParameterizedTest(name = "toFloat(0x{0}) = 0x{1}")
    @ArgumentsSource(OwnTable.class)
    void toFloatOfEdgeCases(String bitsHex, String floatHex) {
        float f = format.toFloat().apply((short) Integer.parseInt(bitsHex, 16));
        assertEquals(Integer.parseUnsignedInt(floatHex, 16), Float.floatToRawIntBits(f));
    }

    /**
     * The rows of {@code <TestClass>.<testMethod>.csv} beside the test class: one case a line, its columns split at the
     * first commas (the last column keeps any further ones); blank lines and lines starting with # are skipped.
     */
    static final class OwnTable implements ArgumentsProvider {
        @Override
        public Stream<Arguments> provideArguments(ExtensionContext context) {
            Class<?> testClass = context.getRequiredTestClass();
            Method method = context.getRequiredTestMethod();
            String name = testClass.getSimpleName() + "." + method.getName() + ".csv";
            int columns = method.getParameterCount();
            try (InputStream in = testClass.getResourceAsStream(name)) {
                if (in == null) throw new IllegalStateException("no table " + name + " beside " + testClass);
                List<Arguments> rows = new String(in.readAllBytes(), StandardCharsets.UTF_8)
                        .lines()
                        .filter(line -> !line.isBlank() && !line.startsWith("#"))
                        .map(line -> Arguments.of((Object[]) Arrays.stream(line.split(",", columns))
                                .map(String::trim)
                                .toArray(String[]::new)))
                        .toList();
                return rows.stream();
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
    }

    private static void assertNoFailures(List<String> failures, String prefix) {
        assertTrue(failures.isEmpty(), () -> prefix + Failures.summary(failures));
    }
}
