package dev.jccl.cuda;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.SymbolLookup;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Finds a shared library the way a user expects it found: the path a variable names (and only that, when set), else the
 * dynamic loader's own search ({@code LD_LIBRARY_PATH}, the ldconfig cache) for each of a list of names, else a few
 * well-known directories, including the {@code site-packages/nvidia/…/lib} directories where PyTorch's pip wheels put
 * libcudart and libnccl. Nothing is loaded until a caller asks, so a missing library costs nothing and says what was
 * tried.
 */
@SuppressWarnings("restricted") // binding native libraries is what this class is for
final class NativeLibraries {
    private NativeLibraries() {}

    /**
     * What to look for.
     *
     * @param variable the variable that names the library's path ({@code JCCL_CUDA_LIB})
     * @param names names for the dynamic loader, most general first
     * @param directories directories to look in for any of {@code names}
     * @param pythonPaths paths relative to a Python {@code site-packages} directory
     */
    record Search(String variable, List<String> names, List<String> directories, List<String> pythonPaths) {}

    /** A loaded library and the name or path it was loaded by. */
    record Loaded(SymbolLookup lookup, String name) {}

    /** Not found: what was tried, in words. */
    static final class NotFound extends Exception {
        NotFound(String message, Throwable cause) {
            super(message, cause, false, false);
        }
    }

    /** Loads the library, or throws {@link NotFound} saying what was tried. */
    static Loaded load(Search search, Map<String, String> env) throws NotFound {
        return load(search, env, lib -> true);
    }

    /**
     * Loads the first library of the search that {@code usable} accepts (a CUDA runtime the driver supports, where a
     * machine has several), else the first one found, else throws {@link NotFound}. A library named by the variable is
     * the only one tried.
     */
    static Loaded load(Search search, Map<String, String> env, java.util.function.Predicate<Loaded> usable)
            throws NotFound {
        String named = env.get(search.variable());
        if (named != null && !named.isBlank()) {
            String path = named.trim();
            try {
                return new Loaded(SymbolLookup.libraryLookup(Path.of(path), Arena.global()), path);
            } catch (IllegalArgumentException e) {
                String why = Files.exists(Path.of(path))
                        ? "it exists but cannot be loaded (" + e.getMessage() + ")"
                        : "no such file";
                throw new NotFound(search.variable() + "=" + path + ": " + why, e);
            }
        }
        Loaded first = null;
        IllegalArgumentException last = null;
        for (String name : search.names()) {
            try {
                Loaded l = new Loaded(SymbolLookup.libraryLookup(name, Arena.global()), name);
                if (usable.test(l)) return l;
                if (first == null) first = l;
            } catch (IllegalArgumentException e) {
                last = e;
            }
        }
        for (Path p : candidates(search, env)) {
            try {
                Loaded l = new Loaded(SymbolLookup.libraryLookup(p, Arena.global()), p.toString());
                if (usable.test(l)) return l;
                if (first == null) first = l;
            } catch (IllegalArgumentException e) {
                last = e;
            }
        }
        if (first != null) return first;
        StringBuilder tried = new StringBuilder("tried ")
                .append(String.join(", ", search.names()))
                .append(" (the dynamic loader's path: LD_LIBRARY_PATH and ldconfig)");
        if (!search.directories().isEmpty()) tried.append(", ").append(String.join(", ", search.directories()));
        if (!search.pythonPaths().isEmpty()) {
            tried.append(" and site-packages/")
                    .append(search.pythonPaths().getFirst().replaceFirst("/[^/]*$", ""))
                    .append(" of ")
                    .append(sitePackages(env).size())
                    .append(" Python installation(s)");
        }
        tried.append("; ").append(search.variable()).append(" may name the file");
        throw new NotFound(tried.toString(), last);
    }

    /** Existing files in the well-known places, in search order. */
    static List<Path> candidates(Search search, Map<String, String> env) {
        Set<Path> out = new LinkedHashSet<>();
        for (String dir : search.directories()) {
            for (String name : search.names()) {
                Path p = Path.of(dir, name);
                if (Files.isRegularFile(p)) out.add(p);
            }
        }
        for (Path site : sitePackages(env)) {
            for (String rel : search.pythonPaths()) {
                Path p = site.resolve(rel);
                if (Files.isRegularFile(p)) out.add(p);
            }
        }
        return new ArrayList<>(out);
    }

    /** Python package directories of the usual installs: system, /usr/local, user, virtualenv, conda, PYTHONPATH. */
    static List<Path> sitePackages(Map<String, String> env) {
        List<Path> roots = new ArrayList<>();
        roots.add(Path.of("/usr/local/lib"));
        roots.add(Path.of("/usr/lib"));
        roots.add(Path.of("/opt/conda/lib"));
        String home = env.get("HOME");
        if (home != null && !home.isBlank()) roots.add(Path.of(home, ".local", "lib"));
        for (String v : List.of("VIRTUAL_ENV", "CONDA_PREFIX")) {
            String prefix = env.get(v);
            if (prefix != null && !prefix.isBlank()) roots.add(Path.of(prefix, "lib"));
        }
        Set<Path> out = new LinkedHashSet<>();
        String pythonPath = env.get("PYTHONPATH");
        if (pythonPath != null) {
            for (String entry : pythonPath.split(":")) {
                if (!entry.isBlank()) out.add(Path.of(entry));
            }
        }
        for (Path root : roots) {
            if (!Files.isDirectory(root)) continue;
            try (DirectoryStream<Path> pythons = Files.newDirectoryStream(root, "python3*")) {
                for (Path py : pythons) {
                    for (String kind : List.of("site-packages", "dist-packages")) {
                        Path site = py.resolve(kind);
                        if (Files.isDirectory(site)) out.add(site);
                    }
                }
            } catch (IOException | SecurityException e) {
                // an unreadable directory is one place fewer to look
            }
        }
        return new ArrayList<>(out);
    }
}
