package dev.jccl.bootstrap;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.jccl.Config;
import dev.jccl.UniqueId;
import dev.jccl.bootstrap.LaunchEnvironment.Launch;
import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

@Timeout(20)
class LaunchEnvironmentTest {

    /** A DNS of our own: cluster names resolve here without a cluster. */
    private static final Map<String, String> HOSTS = Map.of(
            "node01", "10.0.0.1",
            "node03", "10.0.0.3",
            "login1", "10.0.9.9",
            "master-0", "10.1.0.1",
            "pytorchjob-master-0", "10.1.0.2",
            "myjob-0.myjob-svc", "10.2.0.1",
            "rank0-service", "10.2.0.2");

    private static InetAddress fakeDns(String host) throws UnknownHostException {
        String ip = HOSTS.get(host);
        if (ip != null) {
            return InetAddress.getByAddress(host, InetAddress.getByName(ip).getAddress());
        }
        if (host.contains(":") || host.matches("[0-9.]+")) return InetAddress.getByName(host); // literal, no lookup
        throw new UnknownHostException(host + ": Name or service not known");
    }

    private static Launch detect(Map<String, String> env) {
        return LaunchEnvironment.detect(env, LaunchEnvironmentTest::fakeDns);
    }

    /** An environment from {@code NAME=value} entries, as a shell writes them; the value is all after the first '='. */
    private static Map<String, String> env(String... entries) {
        Map<String, String> m = new HashMap<>();
        for (String entry : entries) {
            int eq = entry.indexOf('=');
            if (eq < 1) throw new IllegalArgumentException("not NAME=value: " + entry);
            m.put(entry.substring(0, eq), entry.substring(eq + 1));
        }
        return m;
    }

    /** {@code base} with the {@code NAME=value} entries set (replacing any of the same name). */
    private static Map<String, String> with(Map<String, String> base, String... entries) {
        Map<String, String> m = new HashMap<>(base);
        m.putAll(env(entries));
        return m;
    }

    private static Map<String, String> without(Map<String, String> base, String... keys) {
        Map<String, String> m = new HashMap<>(base);
        for (String k : keys) m.remove(k);
        return m;
    }

    private static IllegalArgumentException fails(Map<String, String> env, String... mustMention) {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> detect(env));
        for (String s : mustMention) {
            assertTrue(e.getMessage().contains(s), "message lacks '" + s + "': " + e.getMessage());
        }
        return e;
    }

    private static InetSocketAddress root(Launch l) {
        return l.id().rootAddress();
    }

    private static final String ID = "jccl1:127.0.0.1:40123:00112233445566778899aabbccddeeff";
    private static final String SECRET = "0f1e2d3c4b5a69788796a5b4c3d2e1f0";

    @Nested
    class JcclRun {
        final Map<String, String> base =
                env("JCCL_RANK=1", "JCCL_WORLD_SIZE=4", "JCCL_ID=" + ID, "JCCL_LOCAL_RANK=1", "JCCL_LOCAL_SIZE=4");

        @Test
        void readsEverything() {
            Launch l = detect(base);
            assertEquals(new Launch(1, 4, UniqueId.parse(ID), "jccl", 1, 4), l);
            assertEquals(40123, root(l).getPort());
            assertEquals("127.0.0.1", root(l).getAddress().getHostAddress());
        }

        @Test
        void publicDetectReadsALiteralIdWithoutTheFakeDns() {
            assertEquals(new Launch(1, 4, UniqueId.parse(ID), "jccl", 1, 4), LaunchEnvironment.detect(base));
        }

        @Test
        void localRankAndSizeUnknownAreMinusOne() {
            Launch l = detect(without(base, "JCCL_LOCAL_RANK", "JCCL_LOCAL_SIZE"));
            assertEquals(-1, l.localRank());
            assertEquals(-1, l.localSize());
        }

        @Test
        void valuesAreTrimmed() {
            Launch l = detect(env("JCCL_RANK= 2 ", "JCCL_WORLD_SIZE=3\n", "JCCL_ID= " + ID + " "));
            assertEquals(2, l.rank());
            assertEquals(3, l.size());
        }

        @Test
        void missingSize() {
            fails(without(base, "JCCL_WORLD_SIZE"), "JCCL_RANK=1", "JCCL_WORLD_SIZE is not set");
        }

        @Test
        void missingRoot() {
            fails(without(base, "JCCL_ID"), "JCCL_RANK=1", "no root address", "JCCL_ID", "JCCL_ROOT");
        }

        @Test
        void malformedId() {
            IllegalArgumentException e =
                    fails(with(base, "JCCL_ID=jccl1:127.0.0.1:40123:zz"), "JCCL_ID is malformed", "jccl id");
            assertTrue(e.getMessage().contains("32 hex digits"), e.getMessage());
            fails(with(base, "JCCL_ID=127.0.0.1:40123"), "JCCL_ID is malformed");
        }

        @Test
        void idWinsOverRootAndSecret() {
            Launch l = detect(with(base, "JCCL_ROOT=10.9.9.9:1", "JCCL_SECRET=" + SECRET));
            assertEquals(UniqueId.parse(ID), l.id());
        }

        @Test
        void rootAndSecretInsteadOfId() throws UnknownHostException {
            Launch l = detect(with(without(base, "JCCL_ID"), "JCCL_ROOT=node01:5000", "JCCL_SECRET=" + SECRET));
            assertEquals(
                    new InetSocketAddress(InetAddress.getByAddress("node01", new byte[] {10, 0, 0, 1}), 5000), root(l));
            assertArrayEquals(HexFormat.of().parseHex(SECRET), l.id().secret());
        }

        @Test
        void rankOutsideSize() {
            fails(with(base, "JCCL_RANK=4"), "JCCL_RANK=4", "outside 0..3", "JCCL_WORLD_SIZE=4");
        }

        @Test
        void sizeZero() {
            fails(with(base, "JCCL_RANK=0", "JCCL_WORLD_SIZE=0"), "JCCL_WORLD_SIZE=0", "at least one rank");
        }

        @Test
        void localRankOutsideLocalSize() {
            fails(with(base, "JCCL_LOCAL_RANK=4"), "JCCL_LOCAL_RANK=4", "JCCL_LOCAL_SIZE=4", "outside 0..3");
        }

        @Test
        void localSizeBiggerThanSize() {
            fails(with(base, "JCCL_LOCAL_SIZE=5"), "JCCL_LOCAL_SIZE=5", "JCCL_WORLD_SIZE=4");
        }

        @Test
        void localSizeZero() {
            fails(with(base, "JCCL_LOCAL_RANK=0", "JCCL_LOCAL_SIZE=0"), "JCCL_LOCAL_SIZE=0");
        }

        @ParameterizedTest(name = "[{index}] {0}=''{1}''")
        @CsvSource({
            "JCCL_RANK, one",
            "JCCL_RANK, -1",
            "JCCL_RANK, 1.0",
            "JCCL_RANK, 0x1",
            "JCCL_WORLD_SIZE, four",
            "JCCL_WORLD_SIZE, 99999999999",
            "JCCL_LOCAL_RANK, a",
            "JCCL_LOCAL_SIZE, '+4'",
        })
        void nonNumeric(String variable, String value) {
            fails(with(base, variable + "=" + value), variable + "='" + value + "'", "not a non-negative integer");
        }
    }

    @Nested
    class OpenMpi {
        final Map<String, String> base = env(
                "OMPI_COMM_WORLD_RANK=3",
                "OMPI_COMM_WORLD_SIZE=8",
                "OMPI_COMM_WORLD_LOCAL_RANK=1",
                "OMPI_COMM_WORLD_LOCAL_SIZE=2",
                "PMIX_NAMESPACE=prterun-host-4711@1",
                "OMPI_MCA_ess_base_jobid=2146500609");

        @Test
        void withId() {
            Launch l = detect(with(base, "JCCL_ID=" + ID));
            assertEquals(new Launch(3, 8, UniqueId.parse(ID), "openmpi", 1, 2), l);
        }

        @Test
        void withRootDerivesTheSameSecretOnEveryRank() {
            Map<String, String> r3 = with(base, "JCCL_ROOT=node01:29700");
            Map<String, String> r0 = with(r3, "OMPI_COMM_WORLD_RANK=0", "OMPI_COMM_WORLD_LOCAL_RANK=0");
            Launch a = detect(r3);
            Launch b = detect(r0);
            assertEquals(a.id(), b.id());
            assertEquals(29700, root(a).getPort());
            assertFalse(Arrays.equals(new byte[16], a.id().secret()));
        }

        @Test
        void otherJobOtherSecret() {
            Map<String, String> job1 = with(base, "JCCL_ROOT=node01:29700");
            Map<String, String> job2 = with(job1, "PMIX_NAMESPACE=prterun-host-4712@1");
            assertFalse(
                    Arrays.equals(detect(job1).id().secret(), detect(job2).id().secret()));
        }

        @Test
        void olderOpenMpiJobIdWithoutPmix() {
            Map<String, String> job1 = with(without(base, "PMIX_NAMESPACE"), "JCCL_ROOT=node01:29700");
            Map<String, String> job2 = with(job1, "OMPI_MCA_ess_base_jobid=2146500610");
            assertFalse(
                    Arrays.equals(detect(job1).id().secret(), detect(job2).id().secret()));
        }

        @Test
        void noRoot() {
            fails(
                    base,
                    "OMPI_COMM_WORLD_RANK=3",
                    "Open MPI",
                    "no root address",
                    "-x JCCL_ID=$(jccl id)",
                    "-x JCCL_ROOT=host:port");
        }

        @Test
        void noSize() {
            fails(
                    with(without(base, "OMPI_COMM_WORLD_SIZE"), "JCCL_ID=" + ID),
                    "OMPI_COMM_WORLD_RANK=3",
                    "OMPI_COMM_WORLD_SIZE is not set");
        }

        @Test
        void rankOutsideSize() {
            fails(
                    with(base, "JCCL_ID=" + ID, "OMPI_COMM_WORLD_RANK=8"),
                    "OMPI_COMM_WORLD_RANK=8",
                    "outside 0..7",
                    "OMPI_COMM_WORLD_SIZE=8");
        }

        @Test
        void localRankOutsideLocalSize() {
            fails(
                    with(base, "JCCL_ID=" + ID, "OMPI_COMM_WORLD_LOCAL_RANK=2"),
                    "OMPI_COMM_WORLD_LOCAL_RANK=2",
                    "OMPI_COMM_WORLD_LOCAL_SIZE=2");
        }

        @Test
        void nonNumericLocalSize() {
            fails(with(base, "JCCL_ID=" + ID, "OMPI_COMM_WORLD_LOCAL_SIZE=two"), "OMPI_COMM_WORLD_LOCAL_SIZE='two'");
        }

        @Test
        void localVariablesAreOptional() {
            Launch l = detect(
                    with(without(base, "OMPI_COMM_WORLD_LOCAL_RANK", "OMPI_COMM_WORLD_LOCAL_SIZE"), "JCCL_ID=" + ID));
            assertEquals(-1, l.localRank());
            assertEquals(-1, l.localSize());
        }

        @Test
        void mpirunInsideASlurmAllocationIsOpenMpi() {
            // mpirun starts its daemons with srun, so its ranks inherit a per-node SLURM_PROCID.
            Launch l = detect(with(
                    base,
                    "JCCL_ID=" + ID,
                    "SLURM_PROCID=1",
                    "SLURM_NTASKS=2",
                    "SLURM_STEP_ID=0",
                    "SLURM_JOB_NODELIST=node[01-02]"));
            assertEquals("openmpi", l.launcher());
            assertEquals(3, l.rank());
            assertEquals(8, l.size());
        }
    }

    @Nested
    class Slurm {
        final Map<String, String> base = env(
                "SLURM_PROCID=5",
                "SLURM_NTASKS=8",
                "SLURM_STEP_NUM_TASKS=8",
                "SLURM_LOCALID=1",
                "SLURM_NODEID=2",
                "SLURM_STEP_TASKS_PER_NODE=2(x4)",
                "SLURM_JOB_NODELIST=node[01-04]",
                "SLURM_STEP_NODELIST=node[01-04]",
                "SLURM_NODELIST=node[01-04]",
                "SLURM_JOB_ID=1234",
                "SLURM_STEP_ID=0",
                "SLURM_STEPID=0");

        @Test
        void rootIsTheFirstNodeOnADefaultPortOfTheJob() {
            Launch l = detect(base);
            assertEquals("slurm", l.launcher());
            assertEquals(5, l.rank());
            assertEquals(8, l.size());
            assertEquals(1, l.localRank());
            assertEquals(2, l.localSize());
            assertEquals("10.0.0.1", root(l).getAddress().getHostAddress());
            assertEquals(LaunchEnvironment.DEFAULT_PORT + 234, root(l).getPort());
        }

        @Test
        void portFollowsJobAndStep() {
            assertEquals(
                    LaunchEnvironment.DEFAULT_PORT + 235,
                    root(detect(with(base, "SLURM_JOB_ID=1235"))).getPort());
            assertEquals(
                    LaunchEnvironment.DEFAULT_PORT + 236,
                    root(detect(with(base, "SLURM_STEP_ID=2"))).getPort());
            assertEquals(
                    LaunchEnvironment.DEFAULT_PORT + 1,
                    root(detect(with(base, "SLURM_JOB_ID=999", "SLURM_STEP_ID=2")))
                            .getPort());
        }

        @Test
        void jcclPortOverridesTheDefault() {
            assertEquals(31000, root(detect(with(base, "JCCL_PORT=31000"))).getPort());
        }

        @Test
        void badJcclPort() {
            fails(with(base, "JCCL_PORT=http"), "JCCL_PORT='http'", "not a port");
            fails(with(base, "JCCL_PORT=0"), "JCCL_PORT='0'");
            fails(with(base, "JCCL_PORT=65536"), "JCCL_PORT='65536'");
        }

        @Test
        void stepNodelistBeforeJobNodelist() {
            // srun -N2 -r2 inside a four-node allocation: task 0 runs on the step's first node.
            Launch l =
                    detect(with(base, "SLURM_STEP_NODELIST=node[03-04]", "SLURM_PROCID=1", "SLURM_STEP_NUM_TASKS=2"));
            assertEquals("10.0.0.3", root(l).getAddress().getHostAddress());
            assertEquals(2, l.size());
        }

        @Test
        void jobNodelistThenNodelist() {
            Map<String, String> noStepList = without(base, "SLURM_STEP_NODELIST");
            assertEquals(
                    "10.0.0.1",
                    root(detect(with(noStepList, "SLURM_NODELIST=login1")))
                            .getAddress()
                            .getHostAddress());
            Map<String, String> onlyOld = without(noStepList, "SLURM_JOB_NODELIST");
            assertEquals(
                    "10.0.9.9",
                    root(detect(with(onlyOld, "SLURM_NODELIST=login1,node01")))
                            .getAddress()
                            .getHostAddress());
        }

        @Test
        void jcclRootOverridesTheNodelist() {
            Launch l = detect(with(base, "JCCL_ROOT=login1:4000"));
            assertEquals(new InetSocketAddress("10.0.9.9", 4000).getAddress(), root(l).getAddress());
            assertEquals(4000, root(l).getPort());
        }

        @Test
        void stepTaskCountBeforeJobTaskCount() {
            assertEquals(8, detect(with(base, "SLURM_NTASKS=16")).size());
            assertEquals(
                    16,
                    detect(with(without(base, "SLURM_STEP_NUM_TASKS"), "SLURM_NTASKS=16"))
                            .size());
            assertEquals(
                    6,
                    detect(with(without(base, "SLURM_STEP_NUM_TASKS", "SLURM_NTASKS"), "SLURM_NPROCS=6"))
                            .size());
        }

        @Test
        void noTaskCount() {
            fails(
                    without(base, "SLURM_STEP_NUM_TASKS", "SLURM_NTASKS"),
                    "SLURM_PROCID=5",
                    "SLURM_NTASKS",
                    "JCCL_WORLD_SIZE");
        }

        @Test
        void everyRankOfAStepAgreesOnTheId() {
            Launch a = detect(base);
            Launch b = detect(with(base, "SLURM_PROCID=0", "SLURM_LOCALID=0", "SLURM_NODEID=0"));
            assertEquals(a.id(), b.id());
            assertEquals(0, b.rank());
        }

        @Test
        void anotherJobDerivesAnotherSecret() {
            Launch a = detect(with(base, "JCCL_PORT=30000"));
            Launch b = detect(with(base, "JCCL_PORT=30000", "SLURM_JOB_ID=1235"));
            Launch c = detect(with(base, "JCCL_PORT=30000", "SLURM_STEP_ID=1", "SLURM_STEPID=1"));
            assertEquals(root(a), root(b));
            assertFalse(Arrays.equals(a.id().secret(), b.id().secret()));
            assertFalse(Arrays.equals(a.id().secret(), c.id().secret()));
        }

        @Test
        void derivedSecretIsTheDocumentedHash() throws Exception {
            Launch l = detect(base);
            String material = "jccl derived secret v1\nroot=node01:" + (LaunchEnvironment.DEFAULT_PORT + 234)
                    + "\njob=SLURM_JOB_ID=1234\nSLURM_STEP_ID=0\n";
            byte[] digest = MessageDigest.getInstance("SHA-256").digest(material.getBytes(StandardCharsets.UTF_8));
            assertArrayEquals(Arrays.copyOf(digest, 16), l.id().secret());
        }

        @Test
        void explicitSecretWins() {
            assertArrayEquals(
                    HexFormat.of().parseHex(SECRET),
                    detect(with(base, "JCCL_SECRET=" + SECRET)).id().secret());
        }

        @Test
        void jobIdVariableReplacesTheLaunchersJobId() {
            Launch a = detect(with(base, "JCCL_JOB_ID=train-42"));
            Launch b = detect(with(
                    base,
                    "JCCL_JOB_ID=train-42",
                    "SLURM_STEP_ID=7",
                    "SLURM_STEPID=7",
                    "JCCL_PORT=" + root(a).getPort()));
            assertArrayEquals(a.id().secret(), b.id().secret());
            assertFalse(Arrays.equals(a.id().secret(), detect(base).id().secret()));
        }

        @Test
        void uncommonTaskLayout() {
            Map<String, String> layout = with(base, "SLURM_STEP_TASKS_PER_NODE=3,2(x2),1", "SLURM_LOCALID=0");
            assertEquals(3, detect(with(layout, "SLURM_NODEID=0")).localSize());
            assertEquals(2, detect(with(layout, "SLURM_NODEID=1")).localSize());
            assertEquals(2, detect(with(layout, "SLURM_NODEID=2")).localSize());
            assertEquals(1, detect(with(layout, "SLURM_NODEID=3")).localSize());
            assertEquals(-1, detect(with(layout, "SLURM_NODEID=4")).localSize());
        }

        @Test
        void taskLayoutIsOnlyAHint() {
            assertEquals(-1, detect(without(base, "SLURM_STEP_TASKS_PER_NODE")).localSize());
            assertEquals(-1, detect(with(base, "SLURM_STEP_TASKS_PER_NODE=two")).localSize());
            // Inconsistent with SLURM_LOCALID: dropped, not fatal.
            Launch l = detect(with(base, "SLURM_STEP_TASKS_PER_NODE=1(x8)", "SLURM_LOCALID=1"));
            assertEquals(1, l.localRank());
            assertEquals(-1, l.localSize());
        }

        @Test
        void slurmTasksOnThisNode() {
            assertEquals(
                    4, LaunchEnvironment.slurmTasksOnThisNode(env("SLURM_STEP_TASKS_PER_NODE=4", "SLURM_NODEID=0")));
            assertEquals(
                    -1, LaunchEnvironment.slurmTasksOnThisNode(env("SLURM_STEP_TASKS_PER_NODE=4", "SLURM_NODEID=1")));
            assertEquals(
                    -1,
                    LaunchEnvironment.slurmTasksOnThisNode(env("SLURM_STEP_TASKS_PER_NODE=2(x0)", "SLURM_NODEID=0")));
            assertEquals(-1, LaunchEnvironment.slurmTasksOnThisNode(env("SLURM_NODEID=0")));
        }

        @Test
        void batchScriptIsNotASrunTask() {
            Map<String, String> batch = without(
                    base,
                    "SLURM_STEP_ID",
                    "SLURM_STEPID",
                    "SLURM_STEP_NODELIST",
                    "SLURM_STEP_NUM_TASKS",
                    "SLURM_STEP_TASKS_PER_NODE");
            batch.put("SLURM_PROCID", "0");
            fails(batch, "SLURM_PROCID=0", "SLURM_NTASKS=8", "no SLURM_STEP_ID", "batch script", "srun");
            fails(with(batch, "SLURM_STEP_ID=4294967294"), "SLURM_STEP_ID=4294967294", "srun");
        }

        @Test
        void batchScriptOfAOneTaskJobRunsAlone() {
            Map<String, String> batch = without(
                    base,
                    "SLURM_STEP_ID",
                    "SLURM_STEPID",
                    "SLURM_STEP_NODELIST",
                    "SLURM_STEP_NUM_TASKS",
                    "SLURM_STEP_TASKS_PER_NODE");
            Launch l = detect(with(batch, "SLURM_PROCID=0", "SLURM_NTASKS=1", "SLURM_LOCALID=0"));
            assertEquals(1, l.size());
            assertEquals("10.0.0.1", root(l).getAddress().getHostAddress());
        }

        @Test
        void oldStepIdName() {
            assertEquals("slurm", detect(without(base, "SLURM_STEP_ID")).launcher());
        }

        @Test
        void noNodelistNoRoot() {
            fails(
                    without(base, "SLURM_STEP_NODELIST", "SLURM_JOB_NODELIST", "SLURM_NODELIST"),
                    "SLURM_PROCID=5",
                    "no root address",
                    "SLURM_JOB_NODELIST",
                    "JCCL_ROOT");
        }

        @Test
        void malformedNodelist() {
            fails(with(base, "SLURM_STEP_NODELIST=node[04-01]"), "SLURM_STEP_NODELIST", "runs backwards", "JCCL_ROOT");
        }

        @Test
        void nodeNameThatDoesNotResolve() {
            AtomicInteger tries = new AtomicInteger();
            IllegalArgumentException e = assertThrows(
                    IllegalArgumentException.class,
                    () -> LaunchEnvironment.detect(
                            with(base, "SLURM_STEP_NODELIST=ghost[1-2]", "JCCL_TIMEOUT=300ms"), host -> {
                                tries.incrementAndGet();
                                throw new UnknownHostException(host);
                            }));
            assertTrue(e.getMessage().contains("'ghost1'"), e.getMessage());
            assertTrue(e.getMessage().contains("SLURM_STEP_NODELIST"), e.getMessage());
            assertTrue(e.getMessage().contains("JCCL_TIMEOUT"), e.getMessage());
            assertTrue(tries.get() > 1, "retried: " + tries.get());
        }

        @Test
        void rankOutsideSize() {
            fails(with(base, "SLURM_PROCID=8"), "SLURM_PROCID=8", "SLURM_STEP_NUM_TASKS=8");
        }

        @Test
        void nonNumericProcid() {
            fails(with(base, "SLURM_PROCID=x"), "SLURM_PROCID='x'");
        }

        @Test
        void jcclWorldSizeMustCountTheWholeJob() {
            fails(with(base, "JCCL_WORLD_SIZE=4"), "SLURM_PROCID=5", "JCCL_WORLD_SIZE=4", "overrides");
        }
    }

    @Nested
    class Torchrun {
        final Map<String, String> base = env(
                "RANK=3",
                "WORLD_SIZE=8",
                "LOCAL_RANK=3",
                "LOCAL_WORLD_SIZE=4",
                "GROUP_RANK=0",
                "MASTER_ADDR=master-0",
                "MASTER_PORT=29500",
                "TORCHELASTIC_RUN_ID=none",
                "TORCHELASTIC_USE_AGENT_STORE=True");

        @Test
        void agentHoldsMasterPortSoTheRootTakesTheNext() {
            Launch l = detect(base);
            assertEquals("torchrun", l.launcher());
            assertEquals(3, l.rank());
            assertEquals(8, l.size());
            assertEquals(3, l.localRank());
            assertEquals(4, l.localSize());
            assertEquals("10.1.0.1", root(l).getAddress().getHostAddress());
            assertEquals(29501, root(l).getPort());
        }

        @Test
        void withoutTheAgentStoreMasterPortItself() {
            assertEquals(
                    29500,
                    root(detect(with(base, "TORCHELASTIC_USE_AGENT_STORE=False")))
                            .getPort());
        }

        @Test
        void kubeflowPyTorchJobWithoutTorchrun() throws UnknownHostException {
            Launch l = detect(env(
                    "RANK=2", "WORLD_SIZE=3", "MASTER_ADDR=pytorchjob-master-0", "MASTER_PORT=23456", "PET_NNODES=3"));
            assertEquals("torchrun", l.launcher());
            assertEquals(2, l.rank());
            assertEquals(3, l.size());
            assertEquals(-1, l.localRank());
            assertEquals(-1, l.localSize());
            assertEquals(
                    new InetSocketAddress(
                            InetAddress.getByAddress("pytorchjob-master-0", new byte[] {10, 1, 0, 2}), 23456),
                    root(l));
        }

        @Test
        void jcclPortOverridesMasterPort() {
            assertEquals(41000, root(detect(with(base, "JCCL_PORT=41000"))).getPort());
            assertEquals(
                    41000,
                    root(detect(with(without(base, "MASTER_PORT"), "JCCL_PORT=41000")))
                            .getPort());
        }

        @Test
        void jcclRootOverridesMaster() {
            Launch l = detect(with(base, "JCCL_ROOT=node01:1234"));
            assertEquals("10.0.0.1", root(l).getAddress().getHostAddress());
            assertEquals(1234, root(l).getPort());
        }

        @Test
        void ipv6MasterAddr() {
            assertEquals(
                    "0:0:0:0:0:0:0:1",
                    root(detect(with(base, "MASTER_ADDR=::1"))).getAddress().getHostAddress());
            assertEquals(
                    "0:0:0:0:0:0:0:1",
                    root(detect(with(base, "MASTER_ADDR=[::1]"))).getAddress().getHostAddress());
        }

        @Test
        void ranksAgreeOnTheSecretAndRunsDiffer() {
            Launch a = detect(base);
            Launch b = detect(with(base, "RANK=0", "LOCAL_RANK=0"));
            Launch c = detect(with(base, "TORCHELASTIC_RUN_ID=job-7"));
            assertEquals(a.id(), b.id());
            assertFalse(Arrays.equals(a.id().secret(), c.id().secret()));
        }

        @Test
        void noMasterAddr() {
            fails(without(base, "MASTER_ADDR"), "RANK=3", "torchrun", "MASTER_ADDR is not set", "JCCL_ROOT");
        }

        @Test
        void noMasterPort() {
            fails(without(base, "MASTER_PORT"), "RANK=3", "MASTER_PORT", "JCCL_PORT");
        }

        @Test
        void badMasterPort() {
            fails(with(base, "MASTER_PORT=abc"), "MASTER_PORT='abc'", "not a port");
            fails(with(base, "MASTER_PORT=65535"), "MASTER_PORT='65535'", "MASTER_PORT + 1");
            assertEquals(
                    65535,
                    root(detect(with(base, "MASTER_PORT=65535", "TORCHELASTIC_USE_AGENT_STORE=False")))
                            .getPort());
        }

        @Test
        void noWorldSize() {
            fails(without(base, "WORLD_SIZE"), "RANK=3", "WORLD_SIZE is not set");
        }

        @Test
        void rankOutsideSize() {
            fails(with(base, "RANK=9"), "RANK=9", "WORLD_SIZE=8");
        }

        @Test
        void localRankOutsideLocalSize() {
            fails(with(base, "LOCAL_RANK=4"), "LOCAL_RANK=4", "LOCAL_WORLD_SIZE=4");
        }

        @Test
        void torchrunUnderSrunIsTorchrun() {
            // srun --ntasks-per-node=1 torchrun --nproc-per-node=4 ...: SLURM_PROCID numbers nodes, RANK numbers ranks.
            Launch l = detect(with(
                    base,
                    "SLURM_PROCID=0",
                    "SLURM_NTASKS=2",
                    "SLURM_STEP_ID=0",
                    "SLURM_JOB_NODELIST=node[01-02]",
                    "SLURM_JOB_ID=77"));
            assertEquals("torchrun", l.launcher());
            assertEquals(3, l.rank());
            assertEquals(8, l.size());
        }

        @Test
        void rankWithoutTorchrunUnderSrunIsSlurm() {
            Launch l = detect(env(
                    "RANK=0",
                    "WORLD_SIZE=1",
                    "MASTER_ADDR=master-0",
                    "MASTER_PORT=29500",
                    "SLURM_PROCID=1",
                    "SLURM_NTASKS=2",
                    "SLURM_STEP_ID=0",
                    "SLURM_STEP_NODELIST=node[01-02]"));
            assertEquals("slurm", l.launcher());
            assertEquals(1, l.rank());
            assertEquals(2, l.size());
        }
    }

    @Nested
    class Kubernetes {
        final Map<String, String> base = env(
                "JOB_COMPLETION_INDEX=2", "JCCL_WORLD_SIZE=4", "JCCL_ROOT=myjob-0.myjob-svc:29600", "HOSTNAME=myjob-2");

        @Test
        void indexedJob() {
            Launch l = detect(base);
            assertEquals("k8s", l.launcher());
            assertEquals(2, l.rank());
            assertEquals(4, l.size());
            assertEquals(-1, l.localRank());
            assertEquals(-1, l.localSize());
            assertEquals("10.2.0.1", root(l).getAddress().getHostAddress());
            assertEquals(29600, root(l).getPort());
        }

        @Test
        void serviceNameAloneTakesTheDefaultPort() {
            Launch l = detect(with(base, "JCCL_ROOT=rank0-service"));
            assertEquals("10.2.0.2", root(l).getAddress().getHostAddress());
            assertEquals(LaunchEnvironment.DEFAULT_PORT, root(l).getPort());
            assertEquals(
                    31111,
                    root(detect(with(base, "JCCL_ROOT=rank0-service", "JCCL_PORT=31111")))
                            .getPort());
        }

        @Test
        void podsOfOneJobAgreeOnTheSecret() {
            Launch a = detect(base);
            Launch b = detect(with(base, "JOB_COMPLETION_INDEX=0", "HOSTNAME=myjob-0"));
            Launch c = detect(with(base, "JOB_COMPLETION_INDEX=3", "HOSTNAME=myjob-3-x7k2p"));
            assertEquals(a.id(), b.id());
            assertEquals(a.id(), c.id());
        }

        @Test
        void anotherJobAnotherSecret() {
            Launch a = detect(base);
            Launch b = detect(with(base, "HOSTNAME=otherjob-2"));
            assertFalse(Arrays.equals(a.id().secret(), b.id().secret()));
        }

        @Test
        void jobNameFromHostname() {
            assertEquals("k8s job=myjob", LaunchEnvironment.jobIdentity(base, "k8s"));
            assertEquals(
                    "k8s job=my-job-1",
                    LaunchEnvironment.jobIdentity(env("JOB_COMPLETION_INDEX=12", "HOSTNAME=my-job-1-12"), "k8s"));
            assertEquals(
                    "k8s job=myjob",
                    LaunchEnvironment.jobIdentity(env("JOB_COMPLETION_INDEX=2", "HOSTNAME=myjob-2-abcde"), "k8s"));
            assertEquals("", LaunchEnvironment.jobIdentity(env("JOB_COMPLETION_INDEX=2", "HOSTNAME=worker"), "k8s"));
            assertEquals("", LaunchEnvironment.jobIdentity(env("JOB_COMPLETION_INDEX=2", "HOSTNAME=-2"), "k8s"));
            assertEquals("", LaunchEnvironment.jobIdentity(env("JOB_COMPLETION_INDEX=2"), "k8s"));
            assertEquals("JCCL_JOB_ID=j", LaunchEnvironment.jobIdentity(with(base, "JCCL_JOB_ID=j"), "k8s"));
        }

        @Test
        void rootAppearsInDnsLate() {
            AtomicInteger tries = new AtomicInteger();
            Launch l = LaunchEnvironment.detect(base, host -> {
                if (tries.incrementAndGet() <= 3) throw new UnknownHostException(host);
                return fakeDns(host);
            });
            assertEquals(4, tries.get());
            assertEquals("10.2.0.1", root(l).getAddress().getHostAddress());
        }

        @Test
        void rootNeverAppears() {
            AtomicInteger tries = new AtomicInteger();
            long start = System.nanoTime();
            IllegalArgumentException e = assertThrows(
                    IllegalArgumentException.class,
                    () -> LaunchEnvironment.detect(with(base, "JCCL_TIMEOUT=0.4"), host -> {
                        tries.incrementAndGet();
                        throw new UnknownHostException(host + ": Name or service not known");
                    }));
            assertTrue(System.nanoTime() - start >= 350_000_000L, "waited for JCCL_TIMEOUT");
            assertTrue(tries.get() >= 3, "retried: " + tries.get());
            assertTrue(e.getMessage().contains("'myjob-0.myjob-svc'"), e.getMessage());
            assertTrue(e.getMessage().contains("from JCCL_ROOT"), e.getMessage());
            assertTrue(e.getMessage().contains("Name or service not known"), e.getMessage());
        }

        @Test
        void badTimeoutIsNamed() {
            fails(with(base, "JCCL_TIMEOUT=soon", "JCCL_ROOT=unknown-host"), "JCCL_TIMEOUT='soon'");
        }

        @Test
        void noWorldSize() {
            fails(
                    without(base, "JCCL_WORLD_SIZE"),
                    "JOB_COMPLETION_INDEX=2",
                    "Kubernetes",
                    "JCCL_WORLD_SIZE is not set",
                    "completions");
        }

        @Test
        void noRoot() {
            fails(without(base, "JCCL_ROOT"), "JOB_COMPLETION_INDEX=2", "no root address", "JCCL_ROOT", "headless");
        }

        @Test
        void indexOutsideSize() {
            IllegalArgumentException e =
                    fails(with(base, "JOB_COMPLETION_INDEX=4"), "JOB_COMPLETION_INDEX=4", "JCCL_WORLD_SIZE=4");
            assertFalse(e.getMessage().contains("overrides"), e.getMessage());
        }

        @Test
        void nonNumericIndex() {
            fails(with(base, "JOB_COMPLETION_INDEX=two"), "JOB_COMPLETION_INDEX='two'");
        }

        @Test
        void torchrunInAJobSetIsTorchrun() {
            // JCCL_WORLD_SIZE would override torchrun's WORLD_SIZE, so a torchrun pod template leaves it out.
            Launch l = detect(with(
                    without(base, "JCCL_WORLD_SIZE"),
                    "RANK=5",
                    "WORLD_SIZE=8",
                    "MASTER_ADDR=master-0",
                    "MASTER_PORT=29500",
                    "TORCHELASTIC_RUN_ID=r"));
            assertEquals("torchrun", l.launcher());
            assertEquals(5, l.rank());
            assertEquals(8, l.size());
            assertEquals("10.2.0.1", root(l).getAddress().getHostAddress()); // JCCL_ROOT still wins over MASTER_ADDR
        }
    }

    @Nested
    class RootVariable {
        final Map<String, String> base = env("JCCL_RANK=0", "JCCL_WORLD_SIZE=2", "JCCL_SECRET=" + SECRET);

        @Test
        void ipv4WithPort() {
            Launch l = LaunchEnvironment.detect(with(base, "JCCL_ROOT=127.0.0.1:4242"));
            assertEquals(new InetSocketAddress("127.0.0.1", 4242), root(l));
            assertEquals(UniqueId.parse("jccl1:127.0.0.1:4242:" + SECRET), l.id());
        }

        @Test
        void ipv6InBrackets() {
            Launch l = LaunchEnvironment.detect(with(base, "JCCL_ROOT=[::1]:4242"));
            assertEquals("0:0:0:0:0:0:0:1", root(l).getAddress().getHostAddress());
            assertEquals(4242, root(l).getPort());
            assertEquals(
                    LaunchEnvironment.DEFAULT_PORT,
                    root(LaunchEnvironment.detect(with(base, "JCCL_ROOT=[::1]")))
                            .getPort());
        }

        @Test
        void hostName() {
            Launch l = detect(with(base, "JCCL_ROOT=login1:7"));
            assertEquals("10.0.9.9", root(l).getAddress().getHostAddress());
            assertEquals(7, root(l).getPort());
        }

        @Test
        void ipv6LiteralThatIsNotAnAddressFailsAtOnce() {
            AtomicInteger tries = new AtomicInteger();
            IllegalArgumentException e = assertThrows(
                    IllegalArgumentException.class,
                    () -> LaunchEnvironment.detect(with(base, "JCCL_ROOT=[::zz]:1"), host -> {
                        tries.incrementAndGet();
                        throw new UnknownHostException(host);
                    }));
            assertEquals(1, tries.get());
            assertTrue(e.getMessage().contains("'::zz'"), e.getMessage());
        }

        @ParameterizedTest(name = "[{index}] ''{0}''")
        @CsvSource(
                delimiter = '|',
                quoteCharacter = '"',
                value = {
                    "host:abc        | port 'abc'",
                    "host:0          | port '0'",
                    "host:65536      | port '65536'",
                    "host:           | port ''",
                    ":4242           | no host",
                    "[]:4242         | no host",
                    "::1:4242        | IPv6 address without brackets",
                    "fe80::1         | IPv6 address without brackets",
                    "[::1            | never closes",
                    "[::1]4242       | after ']'",
                    "tcp://host:4242 | scheme",
                })
        void malformed(String value, String fault) {
            IllegalArgumentException e = fails(with(base, "JCCL_ROOT=" + value), "JCCL_ROOT='" + value + "'", fault);
            assertTrue(e.getMessage().contains("[ipv6]:port"), e.getMessage());
        }
    }

    @Nested
    class Secret {
        final Map<String, String> base = env("JCCL_RANK=0", "JCCL_WORLD_SIZE=2", "JCCL_ROOT=127.0.0.1:4242");

        @Test
        void explicit() {
            assertArrayEquals(
                    HexFormat.of().parseHex(SECRET),
                    detect(with(base, "JCCL_SECRET=" + SECRET)).id().secret());
            assertArrayEquals(
                    HexFormat.of().parseHex(SECRET),
                    detect(with(base, "JCCL_SECRET=" + SECRET.toUpperCase()))
                            .id()
                            .secret());
        }

        @Test
        void wrongLengthIsNamedButNotEchoed() {
            IllegalArgumentException e =
                    fails(with(base, "JCCL_SECRET=abcdef0123"), "JCCL_SECRET", "32 hex digits", "got 10");
            assertFalse(e.getMessage().contains("abcdef0123"), e.getMessage());
        }

        @Test
        void notHexIsNamedButNotEchoed() {
            String bad = "zz" + SECRET.substring(2);
            IllegalArgumentException e = fails(with(base, "JCCL_SECRET=" + bad), "JCCL_SECRET", "32 hex digits");
            assertFalse(e.getMessage().contains(bad), e.getMessage());
        }

        @Test
        void derivedFromRootAndJobId() {
            Launch plain = detect(base);
            Launch job = detect(with(base, "JCCL_JOB_ID=a"));
            Launch otherJob = detect(with(base, "JCCL_JOB_ID=b"));
            Launch otherRoot = detect(with(base, "JCCL_ROOT=127.0.0.1:4243"));
            assertFalse(Arrays.equals(plain.id().secret(), job.id().secret()));
            assertFalse(Arrays.equals(job.id().secret(), otherJob.id().secret()));
            assertFalse(Arrays.equals(plain.id().secret(), otherRoot.id().secret()));
            assertArrayEquals(
                    job.id().secret(),
                    detect(with(base, "JCCL_JOB_ID=a", "JCCL_RANK=1")).id().secret());
        }
    }

    @Nested
    class Precedence {
        /** Every launcher at once, each with its own rank. */
        final Map<String, String> all = env(
                "JCCL_RANK=0",
                "JCCL_WORLD_SIZE=10",
                "JCCL_ID=" + ID,
                "OMPI_COMM_WORLD_RANK=1",
                "OMPI_COMM_WORLD_SIZE=10",
                "RANK=2",
                "WORLD_SIZE=10",
                "MASTER_ADDR=master-0",
                "MASTER_PORT=29500",
                "TORCHELASTIC_RUN_ID=x",
                "SLURM_PROCID=3",
                "SLURM_NTASKS=10",
                "SLURM_STEP_ID=0",
                "SLURM_STEP_NODELIST=node01",
                "JOB_COMPLETION_INDEX=4");

        @Test
        void inOrder() {
            Map<String, String> e = new HashMap<>(all);
            assertEquals(List.of("jccl", 0), launcherAndRank(e));
            e.remove("JCCL_RANK");
            assertEquals(List.of("openmpi", 1), launcherAndRank(e));
            e.remove("OMPI_COMM_WORLD_RANK");
            assertEquals(List.of("torchrun", 2), launcherAndRank(e));
            e.remove("TORCHELASTIC_RUN_ID");
            assertEquals(List.of("slurm", 3), launcherAndRank(e));
            e.remove("SLURM_PROCID");
            assertEquals(List.of("torchrun", 2), launcherAndRank(e));
            e.remove("RANK");
            assertEquals(List.of("k8s", 4), launcherAndRank(e));
        }

        private List<Object> launcherAndRank(Map<String, String> env) {
            Launch l = detect(env);
            assertEquals(10, l.size());
            return List.of(l.launcher(), l.rank());
        }

        @Test
        void jcclVariablesOverrideTheLauncher() {
            Map<String, String> mpi = env(
                    "OMPI_COMM_WORLD_RANK=1",
                    "OMPI_COMM_WORLD_SIZE=4",
                    "OMPI_COMM_WORLD_LOCAL_RANK=1",
                    "OMPI_COMM_WORLD_LOCAL_SIZE=2",
                    "JCCL_ID=" + ID);
            Launch l = detect(with(mpi, "JCCL_WORLD_SIZE=8", "JCCL_LOCAL_RANK=0", "JCCL_LOCAL_SIZE=1"));
            assertEquals("openmpi", l.launcher());
            assertEquals(1, l.rank());
            assertEquals(8, l.size());
            assertEquals(0, l.localRank());
            assertEquals(1, l.localSize());
        }

        @Test
        void blankCountsAsUnset() {
            Launch l = detect(with(all, "JCCL_RANK=  ", "OMPI_COMM_WORLD_RANK="));
            assertEquals("torchrun", l.launcher());
        }
    }

    @Nested
    class NoLauncher {
        @Test
        void emptyEnvironmentListsWhatEachLauncherSets() {
            IllegalArgumentException e = fails(
                    Map.of(),
                    "no launcher found",
                    "JCCL_RANK",
                    "JCCL_WORLD_SIZE",
                    "JCCL_ID",
                    "OMPI_COMM_WORLD_RANK",
                    "SLURM_PROCID",
                    "SLURM_NTASKS",
                    "RANK, WORLD_SIZE, MASTER_ADDR, MASTER_PORT",
                    "JOB_COMPLETION_INDEX",
                    "JCCL_ROOT",
                    "Jccl.init");
            assertFalse(e.getMessage().contains("srun."), e.getMessage());
        }

        @Test
        void namesWhatItFoundWithoutARank() {
            fails(
                    env("JCCL_WORLD_SIZE=4", "JCCL_ROOT=x:1"),
                    "found JCCL_WORLD_SIZE, JCCL_ROOT",
                    "nothing that gives this process's rank");
        }

        @Test
        void insideASlurmAllocationSuggestsSrun() {
            fails(
                    env("SLURM_JOB_ID=12", "SLURM_NTASKS=4"),
                    "found SLURM_JOB_ID, SLURM_NTASKS",
                    "start the ranks with srun");
        }
    }

    @Test
    void toStringKeepsTheSecretOut() {
        Launch l = detect(env("JCCL_RANK=1", "JCCL_WORLD_SIZE=4", "JCCL_ID=" + ID));
        String s = l.toString();
        assertFalse(s.contains("00112233445566778899aabbccddeeff"), s);
        assertTrue(
                s.contains("rank=1") && s.contains("size=4") && s.contains("127.0.0.1:40123") && s.contains("jccl"), s);
    }

    @Test
    void everyJcclVariableReadHereIsKnownToConfig() throws IllegalAccessException {
        int checked = 0;
        for (Field f : LaunchEnvironment.class.getFields()) {
            if (!Modifier.isStatic(f.getModifiers()) || f.getType() != String.class) continue;
            String name = (String) f.get(null);
            if (!name.startsWith("JCCL_")) continue;
            assertEquals(List.of(), Config.unknownVariables(Map.of(name, "1")), name);
            checked++;
        }
        assertEquals(9, checked);
    }
}
