package dev.jccl.tools;

import java.nio.file.Path;

/**
 * The refusals of {@link Charts#checkWritable} that every command drawing a PNG must give, before it reads its input: a
 * file in a directory that is not there, and a directory given as the file.
 */
public final class UnwritablePngs {
    private UnwritablePngs() {}

    /** Runs the command under test with {@code args} and asserts that it fails saying {@code message}. */
    @FunctionalInterface
    public interface ExpectFailure {
        void assertFails(String message, String... args);
    }

    /** Both refusals, for a command given {@code input} and then the PNG after {@code flag}; {@code dir} exists. */
    public static void assertRefused(ExpectFailure command, Path dir, String input, String flag) {
        Path png = dir.resolve("plots").resolve("t.png");
        command.assertFails(
                "cannot write " + png + ": directory " + png.getParent() + " does not exist",
                input,
                flag,
                png.toString());
        command.assertFails("cannot write " + dir + ": it is a directory", input, flag, dir.toString());
    }
}
