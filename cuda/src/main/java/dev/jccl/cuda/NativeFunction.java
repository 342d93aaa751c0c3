package dev.jccl.cuda;

import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.SymbolLookup;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;
import java.util.Optional;
import java.util.function.Function;

/**
 * One C function of a loaded library, bound on first use: a symbol the library lacks (an older release) fails only the
 * feature that needs it, with a sentence naming the function and the library, instead of failing the library's load.
 *
 * <p>Pointers and handles are passed as {@code long} ({@code JAVA_LONG}): on the LP64 platforms CUDA runs on (x86-64,
 * aarch64) a pointer argument travels exactly like a 64-bit integer, and the device addresses and handles Jccl passes
 * are numbers, not Java-accessible memory.
 */
@SuppressWarnings("restricted") // binding native libraries is what this class is for
final class NativeFunction {
    private final SymbolLookup library;
    private final String libraryName;
    private final String name;
    private final FunctionDescriptor descriptor;
    private final Function<String, RuntimeException> missing;
    private volatile MethodHandle handle;

    NativeFunction(
            SymbolLookup library,
            String libraryName,
            String name,
            FunctionDescriptor descriptor,
            Function<String, RuntimeException> missing) {
        this.library = library;
        this.libraryName = libraryName;
        this.name = name;
        this.descriptor = descriptor;
        this.missing = missing;
    }

    /**
     * Makes the functions of one library, each reporting a missing symbol the library's way ({@code missing} turns a
     * sentence into its "unavailable" exception).
     */
    record Binder(SymbolLookup library, String libraryName, Function<String, RuntimeException> missing) {
        /** A function with this C signature. */
        NativeFunction function(String name, FunctionDescriptor descriptor) {
            return new NativeFunction(library, libraryName, name, descriptor, missing);
        }

        /** A function that returns a C {@code int} (a status code, as CUDA's and NCCL's calls do). */
        NativeFunction returningInt(String name, MemoryLayout... arguments) {
            return function(name, FunctionDescriptor.of(ValueLayout.JAVA_INT, arguments));
        }
    }

    String name() {
        return name;
    }

    /** Whether the library has the symbol (binds nothing). */
    boolean exists() {
        return handle != null || library.find(name).isPresent();
    }

    /** The bound function; throws the library's "unavailable" exception when the symbol is missing. */
    MethodHandle handle() {
        MethodHandle h = handle;
        if (h != null) return h;
        Optional<MemorySegment> symbol = library.find(name);
        if (symbol.isEmpty()) throw missing.apply(libraryName + " has no function " + name);
        try {
            h = Linker.nativeLinker().downcallHandle(symbol.get(), descriptor);
        } catch (IllegalCallerException e) {
            throw missing.apply("native access is denied to Jccl, so " + name + " cannot be called; run java with "
                    + "--enable-native-access=ALL-UNNAMED (the jccl launcher does)");
        }
        handle = h;
        return h;
    }

    /** One call of the bound function, {@code h -> (int) h.invokeExact(…)}, with its C signature's exact Java types. */
    @FunctionalInterface
    interface IntCall {
        int on(MethodHandle h) throws Throwable;
    }

    /** The same for a function that returns a C string ({@code const char *}). */
    @FunctionalInterface
    interface StringCall {
        MemorySegment on(MethodHandle h) throws Throwable;
    }

    /**
     * Calls the function: the one place that turns invokeExact's {@code throws Throwable} into what callers see. A
     * downcall throws unchecked exceptions only (the library's "unavailable" one for a missing symbol among them),
     * which pass as they are; anything else would be a bug here, reported naming the function.
     */
    int call(IntCall call) {
        try {
            return call.on(handle());
        } catch (Throwable t) {
            throw unchecked(t);
        }
    }

    /** Calls a function that returns a C string: its text, read up to 4 KiB, or null for a NULL pointer. */
    String callForString(StringCall call) {
        MemorySegment s;
        try {
            s = call.on(handle());
        } catch (Throwable t) {
            throw unchecked(t);
        }
        return s.equals(MemorySegment.NULL) ? null : s.reinterpret(4096).getString(0);
    }

    private RuntimeException unchecked(Throwable t) {
        if (t instanceof RuntimeException r) return r;
        if (t instanceof Error e) throw e;
        return new IllegalStateException("calling " + name + " failed", t);
    }
}
