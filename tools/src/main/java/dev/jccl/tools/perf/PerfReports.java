package dev.jccl.tools.perf;

import com.fasterxml.jackson.core.JacksonException;
import com.fasterxml.jackson.core.JsonLocation;
import com.fasterxml.jackson.databind.DatabindException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonMappingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.ObjectWriter;
import com.fasterxml.jackson.databind.json.JsonMapper;
import dev.jccl.tools.JsonStyle;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.AccessDeniedException;
import java.nio.file.FileSystemException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.Locale;
import java.util.stream.Collectors;

/**
 * Reads and writes {@link PerfReport}s as the JSON of {@code jccl perf --json FILE}: one object whose field names are
 * the record components, two spaces of indent, {@code "wrong": null} for an unchecked row.
 *
 * <p>Reading is strict about what a plot needs (every field present, {@code tool} is {@value #TOOL}) and lenient about
 * fields it does not know, so that a newer Jccl may add some. Every failure is an {@link IllegalArgumentException}
 * whose message names the file and what is wrong with it, fit for printing as is.
 */
public final class PerfReports {
    /** The {@code tool} field of every report. */
    public static final String TOOL = "jccl perf";

    private static final ObjectMapper MAPPER = JsonMapper.builder()
            .enable(DeserializationFeature.FAIL_ON_MISSING_CREATOR_PROPERTIES)
            .enable(DeserializationFeature.FAIL_ON_NULL_FOR_PRIMITIVES)
            .disable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES)
            .enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS)
            .build();

    /** {@code "name": value} and arrays one element a line, like the tools' other JSON (JsonWriter). */
    private static final ObjectWriter WRITER = MAPPER.writer(JsonStyle.prettyPrinter());

    private PerfReports() {}

    /**
     * Writes {@code report} to {@code file}, replacing it if it exists.
     *
     * @throws IllegalArgumentException when {@code file} cannot be written: its directory does not exist, it is a
     *     directory, permission is denied
     * @throws UncheckedIOException on any other I/O failure (a full disk)
     */
    public static void write(PerfReport report, Path file) {
        Path dir = file.toAbsolutePath().getParent();
        if (dir != null && !Files.isDirectory(dir)) {
            throw new IllegalArgumentException("cannot write " + file + ": directory " + dir + " does not exist");
        }
        String text;
        try {
            text = WRITER.writeValueAsString(report) + "\n";
        } catch (JacksonException e) {
            throw new IllegalStateException("cannot turn the report into JSON: " + e.getOriginalMessage(), e);
        }
        try {
            Files.writeString(file, text);
        } catch (FileSystemException e) {
            throw new IllegalArgumentException("cannot write " + file + ": " + reason(e), e);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write " + file + ": " + e.getMessage(), e);
        }
    }

    /**
     * Reads the report that {@code jccl perf --json} wrote to {@code file}.
     *
     * @throws IllegalArgumentException when {@code file} cannot be read, is not JSON, or is not a report (no
     *     {@code rows}, another {@code tool}, a field missing or of the wrong type); the message names the file and the
     *     fault
     */
    public static PerfReport read(Path file) {
        byte[] bytes;
        try {
            bytes = Files.readAllBytes(file);
        } catch (IOException e) {
            if (Files.isDirectory(file)) {
                throw new IllegalArgumentException("cannot read " + file + ": it is a directory", e);
            }
            throw new IllegalArgumentException("cannot read " + file + ": " + reason(e), e);
        }
        JsonNode tree;
        try {
            tree = MAPPER.readTree(bytes);
        } catch (IOException e) {
            String why = e instanceof JacksonException j ? j.getOriginalMessage() + at(j.getLocation()) : e.toString();
            throw notAReport(file, "not JSON (" + why + ")", e);
        }
        if (tree == null || tree.isMissingNode()) throw notAReport(file, "the file is empty", null);
        if (!tree.isObject()) {
            throw notAReport(
                    file,
                    "it holds a JSON " + tree.getNodeType().name().toLowerCase(Locale.ROOT) + ", not an object",
                    null);
        }
        JsonNode tool = tree.get("tool");
        if (tool == null || !tool.isTextual()) throw notAReport(file, "no \"tool\": \"" + TOOL + "\" field", null);
        if (!tool.asText().equals(TOOL)) {
            throw notAReport(file, "its tool is \"" + tool.asText() + "\", not \"" + TOOL + "\"", null);
        }
        JsonNode rows = tree.get("rows");
        if (rows == null || !rows.isArray()) throw notAReport(file, "no \"rows\" array", null);
        try {
            return MAPPER.treeToValue(tree, PerfReport.class);
        } catch (DatabindException e) {
            throw notAReport(file, where(e) + rootMessage(e), e);
        } catch (JacksonException e) {
            throw notAReport(file, e.getOriginalMessage(), e);
        }
    }

    private static IllegalArgumentException notAReport(Path file, String why, Throwable cause) {
        // One line: a top-level handler prints it as is.
        String line = why.lines().map(String::strip).collect(Collectors.joining(" "));
        return new IllegalArgumentException(file + " is not a jccl perf --json report: " + line, cause);
    }

    /** {@code "rows[3].busbw: "} for the field a mapping failure is about, or nothing. */
    private static String where(DatabindException e) {
        if (!(e instanceof JsonMappingException m) || m.getPath().isEmpty()) return "";
        StringBuilder s = new StringBuilder();
        for (JsonMappingException.Reference r : m.getPath()) {
            if (r.getFieldName() != null) {
                if (!s.isEmpty()) s.append('.');
                s.append(r.getFieldName());
            } else if (r.getIndex() >= 0) {
                s.append('[').append(r.getIndex()).append(']');
            }
        }
        return s.isEmpty() ? "" : s + ": ";
    }

    /**
     * Jackson's own words, without the class names and source excerpts it appends, or the message of what a record's
     * constructor threw (a null element in a list).
     */
    private static String rootMessage(DatabindException e) {
        String m = e.getOriginalMessage();
        for (String missing : new String[] {"Missing creator property '", "Missing required creator property '"}) {
            int end = m == null || !m.startsWith(missing) ? -1 : m.indexOf('\'', missing.length());
            if (end < 0) continue;
            String field = m.substring(missing.length(), end);
            return where(e).endsWith(field + ": ") ? "missing" : "missing field \"" + field + "\"";
        }
        if (m != null && m.startsWith("Cannot map `null` into type")) return "null where a number or boolean is due";
        Throwable cause = e.getCause();
        if (cause != null && !(cause instanceof JacksonException)) {
            return "a field holds a value the report cannot take (" + cause + ")";
        }
        return m == null ? e.toString() : m;
    }

    private static String at(JsonLocation l) {
        return l == null || l.getLineNr() < 0 ? "" : " at line " + l.getLineNr() + ", column " + l.getColumnNr();
    }

    private static String reason(IOException e) {
        if (e instanceof NoSuchFileException) return "no such file or directory";
        if (e instanceof AccessDeniedException) return "permission denied";
        if (e instanceof FileSystemException f && f.getReason() != null) return f.getReason();
        return String.valueOf(e.getMessage());
    }
}
