/**
 * Jccl's core: communicators and their collectives over shared memory and TCP. The API is package {@code dev.jccl}; the
 * other packages are internals, exported only to Jccl's own modules.
 *
 * <p>Needs no other module than the JDK's. On the module path, start the JVM with
 * {@code --enable-native-access=dev.jccl.core} (shared memory goes through the foreign-memory API) and, for the faster
 * reduction kernels, {@code --add-modules jdk.incubator.vector}.
 */
module dev.jccl.core {
    // sun.misc.Signal: the flight recorder's dump on SIGUSR1.
    requires jdk.unsupported;
    // CollectiveEvent: every collective as a JDK Flight Recorder event.
    requires jdk.jfr;
    // VectorKernels runs only where the JVM was started with the module; ReduceKernels falls back to loops.
    requires static jdk.incubator.vector;

    exports dev.jccl;

    // Internals, for Jccl's own modules only.
    exports dev.jccl.bootstrap to
            dev.jccl.ucx,
            dev.jccl.tools;
    exports dev.jccl.concurrent to
            dev.jccl.cuda,
            dev.jccl.tools;
    exports dev.jccl.debug to
            dev.jccl.ucx,
            dev.jccl.cuda,
            dev.jccl.tools;
    exports dev.jccl.plan to
            dev.jccl.cuda,
            dev.jccl.tools;
    exports dev.jccl.reduce to
            dev.jccl.tools;
    exports dev.jccl.runtime to
            dev.jccl.cuda,
            dev.jccl.tools;
    exports dev.jccl.topology to
            dev.jccl.ucx,
            dev.jccl.tools;
    exports dev.jccl.transport to
            dev.jccl.ucx,
            dev.jccl.tools;
    exports dev.jccl.transport.shm to
            dev.jccl.tools;

    // Network plugins (JCCL_NET), e.g. dev.jccl.ucx.
    uses dev.jccl.transport.NetPlugin;
}
