package dev.jccl.tools.doctor;

import static dev.jccl.tools.doctor.Fixtures.BROKEN;
import static dev.jccl.tools.doctor.Fixtures.HEALTHY;
import static dev.jccl.tools.doctor.Fixtures.PLAIN;
import static dev.jccl.tools.doctor.Fixtures.ROCE;
import static dev.jccl.tools.doctor.Fixtures.VM;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.function.Consumer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.aggregator.ArgumentsAccessor;
import org.junit.jupiter.params.provider.CsvFileSource;

/**
 * Every check's verdict on each fixture tree, and the catalogue's promise: every check can be driven both to ok and to
 * a problem (warn or fail), except those the catalogue keeps informational.
 */
@Timeout(30)
class DoctorFixtureTreesTest {

    /** The ids of docs/doctor-checks.md §1 (30), in its order, then Jccl's own. */
    static final List<String> CATALOGUE_IDS = List.of(
            "context-runtime",
            "gdr-peermem-module",
            "gdr-peermem-nccl-probe",
            "gdr-dmabuf-support",
            "rdma-devices-present",
            "rdma-devnodes-container",
            "rdma-userspace-stack",
            "rdma-port-state",
            "ib-subnet-manager",
            "roce-gid-v2",
            "roce-mtu",
            "rdma-hca-filter",
            "memlock-limit",
            "shm-size",
            "container-caps-sysfs",
            "topo-gpu-nic-distance",
            "topo-numa-affinity",
            "pcie-acs-iommu",
            "pcie-link-degraded",
            "vm-sriov-relaxed-ordering",
            "k8s-mpi-hcoll",
            "gpu-visibility-mapping",
            "cross-container-gpu-ipc",
            "net-socket-ifname",
            "net-ports-firewall",
            "driver-kernel-user-match",
            "nccl-version-gaps",
            "env-nccl-unknown",
            "env-transport-overrides",
            "hugepages-info");

    @Test
    void everyCatalogueIdIsACheckAndJcclAddsTwo() {
        List<String> ids = new ArrayList<>();
        for (Check c : Check.values()) ids.add(c.id);
        assertEquals(32, ids.size());
        assertTrue(ids.containsAll(CATALOGUE_IDS), ids::toString);
        List<String> extra = new ArrayList<>(ids);
        extra.removeAll(CATALOGUE_IDS);
        assertEquals(List.of("jccl-socket-ifname", "env-jccl-unknown"), extra);
        // Report order follows the catalogue's.
        List<String> catalogueOrder = new ArrayList<>(ids);
        catalogueOrder.retainAll(CATALOGUE_IDS);
        assertEquals(CATALOGUE_IDS, catalogueOrder);
    }

    /**
     * One row of src/test/resources/doctor/findings.csv: a check's verdict on an unedited tree and fragments of its
     * summary, fixes ({@code fix: TEXT}) and evidence ({@code evidence SOURCE :: TEXT}).
     */
    @ParameterizedTest(name = "{0} {1} {2}")
    @CsvFileSource(resources = "/doctor/findings.csv", delimiter = '|', quoteCharacter = '`')
    void whatEachTreeReports(ArgumentsAccessor row) {
        String tree = row.getString(0);
        CheckResult r = Fixtures.assertVerdict(Fixtures.examine(tree), row.getString(1), row.get(2, Verdict.class));
        for (int i = 3; i < row.size(); i++) {
            String expected = row.getString(i);
            if (expected.startsWith("fix: ")) {
                Fixtures.assertFix(r, expected.substring("fix: ".length()));
            } else if (expected.startsWith("evidence ")) {
                int value = expected.indexOf(" :: ");
                Fixtures.assertEvidence(
                        r,
                        expected.substring("evidence ".length(), value),
                        expected.substring(value + " :: ".length()));
            } else {
                Fixtures.assertSummary(r, expected);
            }
        }
    }

    @Test
    void healthyNodePassesEveryCheckThatApplies() {
        Map<String, CheckResult> r = Fixtures.examine(HEALTHY);
        assertEquals(32, r.size());
        Set<String> skipped = Set.of(
                "roce-gid-v2", "roce-mtu", "vm-sriov-relaxed-ordering", "cross-container-gpu-ipc", "hugepages-info");
        for (CheckResult c : r.values()) {
            Fixtures.assertVerdict(r, c.id(), skipped.contains(c.id()) ? Verdict.SKIP : Verdict.OK);
        }
        assertTrue(
                r.values().stream().allMatch(c -> c.fix().isEmpty() || c.verdict() == Verdict.OK),
                "only ok results may carry advice");
    }

    /**
     * findings.csv gives the broken tree's verdict for every check (whatEachTreeReports asserts them); each problem it
     * reports comes with a fix and evidence.
     */
    @Test
    void brokenNodeHasEveryProblemItWasBuiltWith() throws IOException {
        List<String> listed = new ArrayList<>();
        try (InputStream in = DoctorFixtureTreesTest.class.getResourceAsStream("/doctor/findings.csv")) {
            String table = new String(in.readAllBytes(), StandardCharsets.UTF_8);
            for (String row : table.split("\n")) {
                if (row.startsWith(BROKEN + " |")) listed.add(row.split("\\|")[1].strip());
            }
        }
        List<String> ids = new ArrayList<>();
        for (Check c : Check.values()) ids.add(c.id);
        assertEquals(ids.stream().sorted().toList(), listed.stream().sorted().toList());
        for (CheckResult c : Fixtures.examine(BROKEN).values()) {
            if (c.verdict() == Verdict.WARN || c.verdict() == Verdict.FAIL) {
                assertTrue(!c.fix().isEmpty(), () -> c.id() + " reports a problem without a fix");
                assertTrue(!c.evidence().isEmpty(), () -> c.id() + " reports a problem without evidence");
            }
        }
    }

    /**
     * The trees plus one edit per branch the trees do not reach; across them, every check must give ok and a problem.
     * The detailed assertions of each branch are in the per-area tests.
     */
    @Test
    void everyCheckIsDrivenToOkAndToAProblem(@TempDir(factory = RamTempDir.class) Path tmp) {
        Map<String, Set<Verdict>> seen = new TreeMap<>();
        Consumer<Map<String, CheckResult>> record = results -> results.values()
                .forEach(c -> seen.computeIfAbsent(c.id(), k -> EnumSet.noneOf(Verdict.class))
                        .add(c.verdict()));
        for (String tree : List.of(HEALTHY, BROKEN, ROCE, VM, PLAIN)) record.accept(Fixtures.examine(tree));

        Path fieldReport = Fixtures.copy(HEALTHY, tmp.resolve("b2")); // NCCL 2.19.4, peermem, kernel 6.8
        Fixtures.write(
                fieldReport,
                "/proc/driver/nvidia/version",
                "NVRM version: NVIDIA UNIX x86_64 Kernel Module  560.35.03  Release Build\n");
        Fixtures.env(fieldReport, "NCCL_VERSION", "2.19.4-1");
        Fixtures.delete(fieldReport, "/usr/lib/x86_64-linux-gnu/libnccl.so.2.28.7");
        Fixtures.delete(fieldReport, "/usr/lib/x86_64-linux-gnu/libnccl.so.2");
        record.accept(Fixtures.examine(fieldReport));

        Path noDriver = Fixtures.copy(BROKEN, tmp.resolve("c1")); // Mellanox functions, no RDMA devices
        Fixtures.delete(noDriver, "/sys/class/infiniband");
        record.accept(Fixtures.examine(noDriver));

        Path forcedGid = Fixtures.copyWithEnv(ROCE, tmp.resolve("c6"), "NCCL_IB_GID_INDEX", "4");
        Fixtures.write(forcedGid, "/sys/class/net/ens1f0np0/mtu", "1500\n");
        record.accept(Fixtures.examine(forcedGid));

        Path iommu = Fixtures.copyWithFile(HEALTHY, tmp.resolve("e3"), "/sys/class/iommu/dmar0/uevent", "");
        Fixtures.write(iommu, "/sys/kernel/iommu_groups/42/type", "DMA\n");
        record.accept(Fixtures.examine(iommu));

        Path relaxed = Fixtures.copyWithEnv(VM, tmp.resolve("e5"), "NCCL_IB_PCI_RELAXED_ORDERING", "0");
        record.accept(Fixtures.examine(relaxed));

        Path mapped = Fixtures.copyWithEnv(
                BROKEN,
                tmp.resolve("g2"),
                "CUDA_VISIBLE_DEVICES",
                "0",
                "NCCL_HOSTID",
                "container-a",
                "NCCL_MNNVL_ENABLE",
                "0");
        record.accept(Fixtures.examine(mapped));

        Map<String, Set<Verdict>> missing = new LinkedHashMap<>();
        for (Check c : Check.values()) {
            Set<Verdict> v = seen.getOrDefault(c.id, Set.of());
            boolean problem = v.contains(Verdict.WARN) || v.contains(Verdict.FAIL);
            boolean ok = v.contains(Verdict.OK);
            boolean complete = switch (c) {
                case CONTEXT_RUNTIME -> ok; // informational: always ok
                case HUGEPAGES_INFO -> v.equals(Set.of(Verdict.SKIP)); // informational: always skip
                case NET_PORTS_FIREWALL -> ok; // warn only for opt-in probes, which the doctor does not make
                default -> ok && problem;
            };
            if (!complete) missing.put(c.id, v);
        }
        assertEquals(Map.of(), missing, "checks not driven to both ok and a problem (verdicts seen)");
    }
}
