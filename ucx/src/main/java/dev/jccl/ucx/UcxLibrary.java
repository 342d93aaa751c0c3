package dev.jccl.ucx;

import dev.jccl.transport.NetPluginException;
import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.SymbolLookup;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;

/**
 * Finds libucp and its version before JUCX touches it, so that a missing or too old UCX is a sentence naming the
 * package to install instead of an {@link UnsatisfiedLinkError} from deep inside JUCX. Uses the FFM API
 * ({@code ucp_get_version}), no JNI of our own.
 */
final class UcxLibrary {
    /** JUCX 1.12.1 calls nothing newer than UCX 1.12 has. */
    static final int MIN_MAJOR = 1;

    static final int MIN_MINOR = 12;
    /**
     * The library name; {@code -Djccl.ucx.library} overrides it (an unusual install, or a test of the missing case).
     */
    static String library() {
        return System.getProperty("jccl.ucx.library", "libucp.so.0");
    }

    static final String LIBRARY = "libucp.so.0";
    static final String INSTALL =
            "install UCX: apt-get install libucx0 (Debian, Ubuntu), dnf install ucx (RHEL, Fedora), "
                    + "or point LD_LIBRARY_PATH at your UCX's lib directory";

    record Version(int major, int minor, int release) {
        @Override
        public String toString() {
            return major + "." + minor + "." + release;
        }
    }

    private static volatile Version loaded;

    private UcxLibrary() {}

    /**
     * UCX installs handlers for SIGSEGV, SIGBUS, SIGILL and SIGFPE when it loads, and turns every such signal into an
     * abort. The JVM raises SIGSEGV on purpose (implicit null checks, safepoint polls), so a JVM with UCX loaded dies
     * at random. UCX reads UCX_ERROR_SIGNALS once, when libucs loads, so it must be empty before then; a value the user
     * set is kept.
     */
    private static void keepSignalsForTheJvm() throws NetPluginException {
        if (System.getenv("UCX_ERROR_SIGNALS") != null) return;
        Linker linker = Linker.nativeLinker();
        MemorySegment setenv = linker.defaultLookup()
                .find("setenv")
                .orElseThrow(() -> new NetPluginException("libc has no setenv: cannot keep UCX off the JVM's signals"));
        try (Arena arena = Arena.ofConfined()) {
            MethodHandle h = linker.downcallHandle(
                    setenv,
                    FunctionDescriptor.of(
                            ValueLayout.JAVA_INT, ValueLayout.ADDRESS, ValueLayout.ADDRESS, ValueLayout.JAVA_INT));
            int rc = (int) h.invokeExact(arena.allocateFrom("UCX_ERROR_SIGNALS"), arena.allocateFrom(""), 0);
            if (rc != 0) throw new NetPluginException("setenv(UCX_ERROR_SIGNALS) failed");
        } catch (IllegalCallerException e) {
            throw new NetPluginException(
                    "native access is denied to Jccl; run java with --enable-native-access=ALL-UNNAMED", e);
        } catch (NetPluginException e) {
            throw e;
        } catch (Throwable t) {
            throw new NetPluginException("setenv(UCX_ERROR_SIGNALS) failed: " + t, t);
        }
    }

    /** The UCX version found, or a {@link NetPluginException} saying what is missing and what to do. */
    static Version version() throws NetPluginException {
        String name = library();
        Version v = loaded;
        if (v != null && name.equals(LIBRARY)) return v;
        keepSignalsForTheJvm();
        SymbolLookup lib;
        try {
            lib = SymbolLookup.libraryLookup(name, Arena.global());
        } catch (IllegalArgumentException | IllegalCallerException e) {
            throw new NetPluginException(name + " (UCX) was not found: " + INSTALL + " (" + e.getMessage() + ")", e);
        }
        MemorySegment symbol = lib.find("ucp_get_version")
                .orElseThrow(
                        () -> new NetPluginException(name + " has no ucp_get_version: not a UCX library? " + INSTALL));
        try (Arena arena = Arena.ofConfined()) {
            MethodHandle getVersion = Linker.nativeLinker()
                    .downcallHandle(
                            symbol,
                            FunctionDescriptor.ofVoid(ValueLayout.ADDRESS, ValueLayout.ADDRESS, ValueLayout.ADDRESS));
            MemorySegment major = arena.allocate(ValueLayout.JAVA_INT);
            MemorySegment minor = arena.allocate(ValueLayout.JAVA_INT);
            MemorySegment release = arena.allocate(ValueLayout.JAVA_INT);
            getVersion.invokeExact(major, minor, release);
            v = new Version(
                    major.get(ValueLayout.JAVA_INT, 0),
                    minor.get(ValueLayout.JAVA_INT, 0),
                    release.get(ValueLayout.JAVA_INT, 0));
        } catch (IllegalCallerException e) {
            throw new NetPluginException(
                    "native access is denied to Jccl; run java with --enable-native-access=ALL-UNNAMED", e);
        } catch (Throwable t) {
            throw new NetPluginException("calling ucp_get_version failed: " + t, t);
        }
        if (v.major() < MIN_MAJOR || v.major() == MIN_MAJOR && v.minor() < MIN_MINOR) {
            throw new NetPluginException("UCX " + v + " is too old; Jccl's JUCX needs UCX " + MIN_MAJOR + "."
                    + MIN_MINOR + " or newer: " + INSTALL);
        }
        if (name.equals(LIBRARY)) loaded = v;
        return v;
    }
}
