package dev.jccl.runtime;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.jccl.ReduceOp;
import dev.jccl.TestRanks;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import jdk.jfr.Recording;
import jdk.jfr.consumer.RecordedEvent;
import jdk.jfr.consumer.RecordingFile;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** Every operation is a flight-recorder event with what a user needs to find it next to a GC pause. */
@Timeout(120)
class CollectiveEventTest {
    @Test
    void aRecordingShowsEachOperationWithItsSizeAlgorithmAndOutcome() throws Exception {
        Path file = Files.createTempFile("jccl-", ".jfr");
        try (Recording recording = new Recording()) {
            recording.enable("dev.jccl.Collective").withThreshold(Duration.ZERO);
            recording.start();
            List<Object> results = TestRanks.run(2, TestRanks.loopback(Duration.ofSeconds(30)), (rank, c) -> {
                c.allReduce(new float[1000], ReduceOp.SUM);
                c.broadcast(new int[3], 1);
                return "ok";
            });
            for (Object r : results) assertEquals("ok", r);
            recording.stop();
            recording.dump(file);
        }
        List<RecordedEvent> events = RecordingFile.readAllEvents(file).stream()
                .filter(e -> e.getEventType().getName().equals("dev.jccl.Collective"))
                .toList();
        Files.delete(file);
        assertEquals(4, events.size(), events::toString);
        RecordedEvent allReduce = events.stream()
                .filter(e -> e.getString("operation").equals("AllReduce") && e.getInt("rank") == 1)
                .findFirst()
                .orElseThrow(() -> new AssertionError(events.toString()));
        assertEquals(4000, allReduce.getLong("bytes"));
        assertEquals(0, allReduce.getLong("sequence"));
        assertEquals(2, allReduce.getInt("size"));
        assertEquals("completed", allReduce.getString("outcome"));
        assertTrue(!allReduce.getString("algorithm").isEmpty()
                && !allReduce.getString("transport").isEmpty());
        assertTrue(allReduce.getDuration().toNanos() > 0);
        RecordedEvent broadcast = events.stream()
                .filter(e -> e.getString("operation").equals("Broadcast"))
                .findFirst()
                .orElseThrow();
        assertEquals(1, broadcast.getLong("sequence"));
        assertEquals(1, broadcast.getInt("peer"));
    }
}
