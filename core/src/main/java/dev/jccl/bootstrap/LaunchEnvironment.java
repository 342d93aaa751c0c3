package dev.jccl.bootstrap;

import dev.jccl.UniqueId;

import java.util.Map;

/** Placeholder while the launcher detection is written. */
public final class LaunchEnvironment {
    public record Launch(int rank, int size, UniqueId id, String launcher) {}

    public static Launch detect(Map<String, String> env) {
        throw new UnsupportedOperationException("not yet built");
    }
}
