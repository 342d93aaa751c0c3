package dev.jccl.tools.doctor;

import java.util.ArrayList;
import java.util.List;

/** Runs every check over one host, in catalogue order (later checks use facts the earlier ones read). */
final class Doctor {
    private Doctor() {}

    static List<CheckResult> examine(Host host) {
        HostFacts facts = new HostFacts(host);
        RdmaDeviceChecks devices = new RdmaDeviceChecks(facts);
        RdmaPortChecks ports = new RdmaPortChecks(facts);
        LimitChecks limits = new LimitChecks(facts);
        TopologyChecks topology = new TopologyChecks(facts);
        GpuIdentityChecks gpus = new GpuIdentityChecks(facts);
        NetworkChecks network = new NetworkChecks(facts);
        VersionChecks versions = new VersionChecks(facts);
        VariableChecks variables = new VariableChecks(facts);

        List<CheckResult> results = new ArrayList<>();
        results.add(new ContextChecks(facts).runtime());
        results.addAll(new GdrChecks(facts).run());
        results.add(devices.devicesPresent());
        results.add(devices.devnodesContainer());
        results.add(devices.userspaceStack());
        results.add(ports.portState());
        results.add(ports.subnetManager());
        results.add(ports.roceGid());
        results.add(ports.roceMtu());
        results.add(ports.hcaFilter());
        results.add(limits.memlock());
        results.add(limits.shmSize());
        results.add(limits.containerCapsSysfs());
        results.add(topology.gpuNicDistance());
        results.add(topology.numaAffinity());
        results.add(topology.acsIommu());
        results.add(topology.linkDegraded());
        results.add(topology.sriovRelaxedOrdering());
        results.add(new MpiChecks(facts).hcoll());
        results.add(gpus.visibilityMapping());
        results.add(gpus.crossContainerIpc());
        results.add(network.ncclSocketIfname());
        results.add(network.jcclSocketIfname());
        results.add(network.portsFirewall());
        results.add(versions.driverMatch());
        results.add(versions.ncclGaps());
        results.add(variables.ncclUnknown());
        results.add(variables.jcclUnknown());
        results.add(variables.transportOverrides());
        results.add(new InfoChecks(facts).hugepages());
        return results;
    }

    /** Whether any check failed: the command's exit code is then 1. */
    static boolean anyFailed(List<CheckResult> results) {
        return results.stream().anyMatch(r -> r.verdict() == Verdict.FAIL);
    }
}
