package dev.jccl.tools;

import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;

/**
 * One of the launcher's output streams, shared by every rank's copier: each call writes whole lines under one lock, so
 * lines from different ranks never interleave inside a line.
 */
final class LineSink {
    private final OutputStream out;

    LineSink(OutputStream out) {
        this.out = out;
    }

    /** Writes {@code prefix}, {@code line} (bytes as the rank wrote them) and a newline if it lacks one. */
    synchronized void writeLine(byte[] prefix, byte[] line, int length) {
        try {
            out.write(prefix);
            out.write(line, 0, length);
            if (length == 0 || line[length - 1] != '\n') out.write('\n');
            out.flush();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** A message of the launcher's own, e.g. why it is stopping the ranks. */
    synchronized void message(String text) {
        byte[] bytes = (text + "\n").getBytes(StandardCharsets.UTF_8);
        writeLine(new byte[0], bytes, bytes.length);
    }
}
