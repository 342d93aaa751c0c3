package dev.jccl.tools.trace;

import com.fasterxml.jackson.core.JacksonException;
import com.fasterxml.jackson.core.JsonLocation;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.json.JsonMapper;
import java.io.IOException;
import java.nio.file.AccessDeniedException;
import java.nio.file.FileSystemException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Predicate;
import java.util.stream.Stream;

/**
 * Reads the flight-recorder dumps in a directory. A dump is any {@code *.json} file there that is one: the ranks name
 * theirs {@code jccl-trace-<comm>-rank<r>.json}, but {@code dumpTrace(path)} takes any name. Other JSON files are left
 * out and said so; a file that cannot be read or is not JSON stops the reading, since a half-written or damaged dump
 * would leave a rank out silently.
 *
 * <p>Every failure is an {@link IllegalArgumentException} whose message names the file, what is wrong and what to do,
 * fit for printing as is.
 */
final class TraceFiles {
    /** What the ranks name their dumps; a file so named must be a dump. */
    static final String DUMP_PREFIX = "jccl-trace-";

    private static final String WHERE_DUMPS_COME_FROM = "ranks write jccl-trace-<communicator>-rank<r>.json into"
            + " JCCL_TRACE_DIR (default: the temp dir) when an operation fails, and comm.dumpTrace(path) writes one on"
            + " request";

    private static final ObjectMapper MAPPER = JsonMapper.builder()
            .enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS)
            .build();

    private TraceFiles() {}

    /**
     * The dumps in {@code dir}, and one note per JSON file left out.
     *
     * @param dumps by communicator, then rank; where a rank dumped twice (on failure, then on request) only the newest
     */
    record Contents(List<TraceDump> dumps, List<String> notes) {}

    static Contents readDirectory(Path dir) {
        if (!Files.exists(dir)) {
            throw new IllegalArgumentException("cannot read " + dir
                    + ": no such directory; give the directory that holds the dumps (" + WHERE_DUMPS_COME_FROM + ")");
        }
        if (!Files.isDirectory(dir)) {
            throw new IllegalArgumentException(
                    dir + " is a file; give the directory that holds every rank's dump, e.g. "
                            + dir.toAbsolutePath().getParent());
        }
        List<Path> files;
        try (Stream<Path> listing = Files.list(dir)) {
            files = listing.filter(p -> p.getFileName().toString().endsWith(".json"))
                    .filter(Files::isRegularFile)
                    .sorted()
                    .toList();
        } catch (IOException e) {
            throw new IllegalArgumentException("cannot read " + dir + ": " + reason(e), e);
        }
        if (files.isEmpty()) {
            throw new IllegalArgumentException(
                    "no flight-recorder dumps in " + dir + " (no *.json file); " + WHERE_DUMPS_COME_FROM);
        }
        List<TraceDump> all = new ArrayList<>();
        List<String> notes = new ArrayList<>();
        for (Path file : files) {
            TraceDump dump = readFile(file);
            if (dump == null) notes.add("left out " + file.getFileName() + ": a JSON file that is not a dump");
            else all.add(dump);
        }
        if (all.isEmpty()) {
            throw new IllegalArgumentException("no flight-recorder dumps in " + dir + ": its " + files.size()
                    + " JSON file(s) are something else; " + WHERE_DUMPS_COME_FROM);
        }
        return new Contents(newestPerRank(all, notes), List.copyOf(notes));
    }

    /**
     * The dump in {@code file}, or null for a JSON object that is plainly something else (neither named nor shaped like
     * a dump).
     */
    static TraceDump readFile(Path file) {
        byte[] bytes;
        try {
            bytes = Files.readAllBytes(file);
        } catch (IOException e) {
            throw new IllegalArgumentException(
                    "cannot read " + file + ": " + reason(e) + "; fix its permissions or move it out of the way", e);
        }
        JsonNode tree;
        try {
            tree = MAPPER.readTree(bytes);
        } catch (IOException e) {
            String why = e instanceof JacksonException j ? j.getOriginalMessage() + at(j.getLocation()) : e.toString();
            throw damaged(file, "it is not JSON (" + oneLine(why) + ")");
        }
        boolean named = file.getFileName().toString().startsWith(DUMP_PREFIX);
        boolean shaped = tree != null && tree.isObject() && tree.has("commId") && tree.has("operations");
        if (!named && !shaped) return null;
        if (tree == null || tree.isMissingNode()) throw damaged(file, "it is empty");
        if (!tree.isObject()) throw damaged(file, "it holds a JSON " + kind(tree) + ", not an object");
        Fields f = new Fields(file, tree, "");
        int rank = f.integer("rank");
        int size = f.integer("size");
        if (size < 1 || rank < 0 || rank >= size) {
            throw damaged(file, "it says rank " + rank + " of " + size + " ranks");
        }
        JsonNode ops = tree.get("operations");
        if (ops == null || !ops.isArray()) throw damaged(file, "no \"operations\" array");
        List<TraceOperation> operations = new ArrayList<>(ops.size());
        for (int i = 0; i < ops.size(); i++) {
            JsonNode o = ops.get(i);
            String at = "operations[" + i + "].";
            if (!o.isObject()) throw damaged(file, at.substring(0, at.length() - 1) + " is not an object");
            operations.add(operation(new Fields(file, o, at)));
        }
        return new TraceDump(
                file,
                rank,
                size,
                f.optionalText("where", "?"),
                f.text("commId"),
                f.number("dumpedAtMicros"),
                f.optionalNumber("recorded", operations.size()),
                f.optionalText("verdict", null),
                operations);
    }

    private static TraceOperation operation(Fields f) {
        String state = f.text("state");
        if (!Set.of(TraceOperation.STARTED, TraceOperation.COMPLETED, TraceOperation.FAILED)
                .contains(state)) {
            throw damaged(f.file, f.prefix + "state is \"" + state + "\", not started, completed or failed");
        }
        JsonNode duration = f.node.get("durationMicros");
        if (duration != null && !duration.isNull() && !duration.canConvertToLong()) {
            throw damaged(f.file, f.prefix + "durationMicros is not a whole number");
        }
        return new TraceOperation(
                f.optionalNumber("index", -1),
                f.text("op"),
                f.number("seq"),
                f.bool("collective"),
                f.optionalNumber("count", 0),
                f.optionalText("type", "?"),
                f.optionalNumber("bytes", 0),
                f.optionalText("reduceOp", null),
                (int) f.optionalNumber("peer", -1),
                f.optionalText("algorithm", "?"),
                f.number("startMicros"),
                duration == null || duration.isNull() ? null : duration.asLong(),
                state);
    }

    /** Keeps each rank's newest dump per communicator: a failure dump followed by dumpTrace is one rank twice. */
    private static List<TraceDump> newestPerRank(List<TraceDump> all, List<String> notes) {
        Map<String, TraceDump> newest = new LinkedHashMap<>();
        for (TraceDump d : all) {
            String key = d.commId() + "/" + d.rank();
            TraceDump kept = newest.get(key);
            if (kept == null) {
                newest.put(key, d);
                continue;
            }
            TraceDump newer = d.dumpedAtMicros() > kept.dumpedAtMicros() ? d : kept;
            TraceDump older = newer == d ? kept : d;
            newest.put(key, newer);
            notes.add("rank " + d.rank() + " of " + d.commId() + " dumped twice: using "
                    + newer.file().getFileName() + ", the newer, not "
                    + older.file().getFileName());
        }
        return newest.values().stream()
                .sorted(Comparator.comparing(TraceDump::commId).thenComparingInt(TraceDump::rank))
                .toList();
    }

    /** Typed access to one object's fields, failing with the file and the field's path. */
    private record Fields(Path file, JsonNode node, String prefix) {
        int integer(String name) {
            long v = number(name);
            if (v != (int) v) throw damaged(file, prefix + name + " is " + v + ", too large");
            return (int) v;
        }

        long number(String name) {
            return present(name, v -> v.canConvertToLong() && v.isIntegralNumber(), "a whole number")
                    .asLong();
        }

        long optionalNumber(String name, long otherwise) {
            return absent(name) ? otherwise : number(name);
        }

        String text(String name) {
            return present(name, JsonNode::isTextual, "text").asText();
        }

        String optionalText(String name, String otherwise) {
            return absent(name) ? otherwise : text(name);
        }

        boolean bool(String name) {
            return present(name, JsonNode::isBoolean, "true or false").asBoolean();
        }

        private JsonNode present(String name) {
            if (absent(name)) throw damaged(file, prefix + name + " is missing");
            return node.get(name);
        }

        /** The field, which must be there and of the {@code expected} kind. */
        private JsonNode present(String name, Predicate<JsonNode> ofKind, String expected) {
            JsonNode v = present(name);
            if (!ofKind.test(v)) throw wrongType(name, expected);
            return v;
        }

        /** Missing, or null: what an optional field may be. */
        private boolean absent(String name) {
            JsonNode v = node.get(name);
            return v == null || v.isNull();
        }

        private IllegalArgumentException wrongType(String name, String expected) {
            return damaged(file, prefix + name + " is " + kind(node.get(name)) + ", not " + expected);
        }
    }

    private static IllegalArgumentException damaged(Path file, String why) {
        return new IllegalArgumentException(file + " is not a readable flight-recorder dump: " + why
                + "; move it out of " + parentOf(file) + " (or repair it) and run again");
    }

    private static String parentOf(Path file) {
        Path parent = file.toAbsolutePath().getParent();
        return parent == null ? "the directory" : parent.toString();
    }

    private static String kind(JsonNode n) {
        return switch (n.getNodeType()) {
            case ARRAY -> "an array";
            case OBJECT -> "an object";
            case STRING -> "text";
            case NUMBER -> "a number";
            case BOOLEAN -> "a boolean";
            default -> n.getNodeType().name().toLowerCase(java.util.Locale.ROOT);
        };
    }

    private static String at(JsonLocation l) {
        return l == null || l.getLineNr() < 0 ? "" : " at line " + l.getLineNr() + ", column " + l.getColumnNr();
    }

    private static String oneLine(String s) {
        return String.join(" ", s.lines().map(String::strip).toList());
    }

    private static String reason(IOException e) {
        if (e instanceof NoSuchFileException) return "no such file or directory";
        if (e instanceof AccessDeniedException) return "permission denied";
        if (e instanceof FileSystemException f && f.getReason() != null) return f.getReason();
        return String.valueOf(e.getMessage());
    }
}
