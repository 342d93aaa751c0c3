package dev.jccl.examples;

import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;

/**
 * What training needs to go on from a step: the weights, the optimiser's momentum and the global step. Written by the
 * survivors of an elastic run when they go on, read by {@code --resume-from}, so that a reference run can start where
 * they did.
 */
record TrainingState(int step, float[] params, float[] velocity) {
    private static final int MAGIC = 0x4A435354; // "JCST"

    void write(Path file) {
        try {
            Path dir = file.toAbsolutePath().getParent();
            Path tmp = Files.createTempFile(dir, file.getFileName().toString(), ".tmp");
            try (DataOutputStream out = new DataOutputStream(new BufferedOutputStream(Files.newOutputStream(tmp)))) {
                out.writeInt(MAGIC);
                out.writeInt(step);
                out.writeInt(params.length);
                for (float p : params) out.writeFloat(p);
                for (float v : velocity) out.writeFloat(v);
            }
            Files.move(tmp, file, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write the training state to " + file, e);
        }
    }

    static TrainingState read(Path file, int parameters) {
        try (DataInputStream in = new DataInputStream(new BufferedInputStream(Files.newInputStream(file)))) {
            if (in.readInt() != MAGIC) throw new IllegalArgumentException(file + " is not a training state");
            int step = in.readInt();
            int n = in.readInt();
            if (n != parameters) {
                throw new IllegalArgumentException(file + " holds " + n + " parameters, this model has " + parameters
                        + ": resume with the options the state was saved with");
            }
            float[] params = new float[n], velocity = new float[n];
            for (int i = 0; i < n; i++) params[i] = in.readFloat();
            for (int i = 0; i < n; i++) velocity[i] = in.readFloat();
            return new TrainingState(step, params, velocity);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read the training state " + file, e);
        }
    }

    /** Writes {@code weights} as raw little-endian FLOAT32, the form numpy.fromfile and tests read. */
    static void writeWeights(Path file, float[] weights) {
        ByteBuffer b = ByteBuffer.allocate(4 * weights.length).order(ByteOrder.LITTLE_ENDIAN);
        b.asFloatBuffer().put(weights);
        try {
            Files.write(file, b.array());
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write the weights to " + file, e);
        }
    }

    static float[] readWeights(Path file) throws IOException {
        ByteBuffer b = ByteBuffer.wrap(Files.readAllBytes(file)).order(ByteOrder.LITTLE_ENDIAN);
        float[] w = new float[b.remaining() / 4];
        b.asFloatBuffer().get(w);
        return w;
    }
}
