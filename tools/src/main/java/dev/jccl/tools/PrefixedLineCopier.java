package dev.jccl.tools;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;

/**
 * Copies one stream of one rank to a {@link LineSink}, each line prefixed with {@code [rank] }. Bytes pass through
 * undecoded. A line longer than {@link #MAX_LINE} is cut into pieces, each prefixed, so one rank cannot make the
 * launcher buffer without bound.
 */
final class PrefixedLineCopier implements Runnable {
    static final int MAX_LINE = 1 << 20;

    private final InputStream in;
    private final byte[] prefix;
    private final LineSink sink;

    PrefixedLineCopier(InputStream in, int rank, LineSink sink) {
        this(in, rank, false, sink);
    }

    /** @param plain copy lines without the {@code [rank]} prefix */
    PrefixedLineCopier(InputStream in, int rank, boolean plain, LineSink sink) {
        this.in = in;
        this.prefix = plain ? new byte[0] : ("[" + rank + "] ").getBytes(StandardCharsets.US_ASCII);
        this.sink = sink;
    }

    /** Starts copying on a daemon thread named for the rank and stream. */
    static Thread start(InputStream in, int rank, String stream, LineSink sink) {
        return start(in, rank, false, stream, sink);
    }

    /** As {@link #start(InputStream, int, String, LineSink)}; {@code plain} drops the prefix. */
    static Thread start(InputStream in, int rank, boolean plain, String stream, LineSink sink) {
        Thread t = new Thread(new PrefixedLineCopier(in, rank, plain, sink), "jccl-run-rank" + rank + "-" + stream);
        t.setDaemon(true);
        t.start();
        return t;
    }

    @Override
    public void run() {
        ByteArrayOutputStream line = new ByteArrayOutputStream(256);
        byte[] buffer = new byte[8192];
        try (in) {
            int n;
            while ((n = in.read(buffer)) >= 0) {
                int start = 0;
                for (int i = 0; i < n; i++) {
                    if (buffer[i] == '\n' || line.size() + (i - start) >= MAX_LINE) {
                        line.write(buffer, start, i + 1 - start);
                        flush(line);
                        start = i + 1;
                    }
                }
                line.write(buffer, start, n - start);
            }
        } catch (IOException e) {
            // The pipe closed under us (the rank was killed and the stream torn down): keep what we have.
        } finally {
            if (line.size() > 0) flush(line);
        }
    }

    private void flush(ByteArrayOutputStream line) {
        sink.writeLine(prefix, line.toByteArray(), line.size());
        line.reset();
    }
}
