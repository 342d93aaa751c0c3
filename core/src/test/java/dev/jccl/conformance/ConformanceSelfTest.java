package dev.jccl.conformance;

import static java.util.Map.entry;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.jccl.Communicator;
import dev.jccl.conformance.InMemoryCommunicator.Fault;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Tests the tests: the conformance battery and the bad-argument checks must pass on a plain correct implementation
 * ({@link InMemoryCommunicator}) and must catch each defect injected into it, naming the collective involved. A suite
 * that cannot fail proves nothing.
 */
@Timeout(value = 10, unit = TimeUnit.MINUTES)
class ConformanceSelfTest {

    private static List<List<String>> runOnInMemory(
            int size, Fault fault, java.util.function.Function<Communicator, List<String>> body) {
        List<Communicator> comms = InMemoryCommunicator.create(size, fault);
        return ThreadRanks.run(size, comms::get, Duration.ofMinutes(3), body);
    }

    @ParameterizedTest(name = "{0} in-memory ranks")
    @ValueSource(ints = {1, 2, 3, 4})
    void batteryPassesOnACorrectImplementation(int size) {
        List<List<String>> results =
                runOnInMemory(size, Fault.NONE, c -> ConformanceBody.run(c, ConformanceBody.Plan.QUICK));
        assertTrue(ThreadRanks.allPassed(results), () -> ThreadRanks.report(results));
    }

    /** What a failure report must mention for each injected defect. */
    private static final Map<Fault, String> NAMED = Map.ofEntries(
            entry(Fault.ALLREDUCE_SKIPS_LAST_ELEMENT, "allReduce"),
            entry(Fault.ALLGATHER_OVERRUNS, "guard"),
            entry(Fault.AVG_MULTIPLIES_BY_RECIPROCAL, "AVG"),
            entry(Fault.AVG_UNSIGNED_AS_SIGNED, "AVG"),
            entry(Fault.UNSIGNED_COMPARED_AS_SIGNED, "UINT"),
            entry(Fault.HALF_TRUNCATES, "FLOAT16"),
            entry(Fault.REDUCE_WRITES_NON_ROOT, "non-root"),
            entry(Fault.BROADCAST_IGNORES_ROOT, "broadcast"),
            entry(Fault.ALLTOALL_TRANSPOSED, "allToAll"),
            entry(Fault.REDUCESCATTER_ALWAYS_BLOCK_ZERO, "reduceScatter"),
            entry(Fault.RECV_LIFO, "recv"),
            entry(Fault.SENDRECV_SENDS_RECV_BUFFER, "sendRecv"),
            entry(Fault.ASYNC_ACCEPTS_CONFINED, "confined"),
            entry(Fault.ASYNC_COMPLETES_OUT_OF_ORDER, "completed before"),
            entry(Fault.BARRIER_DOES_NOT_WAIT, "barrier"),
            entry(Fault.SPLIT_IGNORES_KEY, "split"));

    @ParameterizedTest(name = "{0}")
    @EnumSource(
            value = Fault.class,
            names = {"NONE", "NO_ARGUMENT_CHECKS"},
            mode = EnumSource.Mode.EXCLUDE)
    void batteryCatchesAnInjectedDefect(Fault fault) {
        List<List<String>> results = runOnInMemory(3, fault, c -> ConformanceBody.run(c, ConformanceBody.Plan.QUICK));
        String report = ThreadRanks.report(results);
        assertFalse(ThreadRanks.allPassed(results), "the battery did not notice " + fault);
        System.out.println(fault + " → "
                + results.stream()
                        .flatMap(List::stream)
                        .findFirst()
                        .orElseThrow()
                        .lines()
                        .findFirst()
                        .orElseThrow());
        String word = NAMED.get(fault);
        assertTrue(
                report.contains(word),
                () -> "the failures for " + fault + " do not mention '" + word + "':\n" + report);
        assertFalse(
                report.contains("still running after"),
                () -> "a defect made the battery hang instead of fail:\n" + report);
    }

    @ParameterizedTest(name = "{0} in-memory ranks")
    @ValueSource(ints = {2, 3})
    void badArgumentChecksPassOnACorrectImplementation(int size) {
        List<List<String>> results = runOnInMemory(size, Fault.NONE, BadArgumentsBody::run);
        assertTrue(ThreadRanks.allPassed(results), () -> ThreadRanks.report(results));
        List<List<String>> rootOnly = runOnInMemory(size, Fault.NONE, BadArgumentsBody::runRootOnly);
        assertTrue(ThreadRanks.allPassed(rootOnly), () -> ThreadRanks.report(rootOnly));
    }

    @ParameterizedTest(name = "{0} in-memory ranks")
    @ValueSource(ints = {2, 3})
    void badArgumentChecksCatchAnImplementationThatAcceptsThem(int size) {
        List<List<String>> results = runOnInMemory(size, Fault.NO_ARGUMENT_CHECKS, BadArgumentsBody::run);
        String report = ThreadRanks.report(results);
        assertFalse(ThreadRanks.allPassed(results), "accepting bad arguments went unnoticed");
        assertTrue(report.contains("count=-5: accepted"), report);
        assertTrue(report.contains("root=-1: accepted"), report);
        assertTrue(report.contains("allToAll with overlapping, shifted send and recv: accepted"), report);
        assertTrue(report.contains("sendRecv count=-5: accepted"), report);
        assertTrue(report.contains("sendRecv sendPeer=rank, recvPeer=prev: accepted"), report);
    }
}
