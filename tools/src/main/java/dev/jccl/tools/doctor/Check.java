package dev.jccl.tools.doctor;

/**
 * Every check the doctor runs, in report order: the ids of docs/doctor-checks.md (its section letter and number in
 * {@link #catalogue}), plus Jccl's own checks, which have none.
 */
enum Check {
    CONTEXT_RUNTIME("context-runtime", Area.CONTEXT, "A1"),
    GDR_PEERMEM_MODULE("gdr-peermem-module", Area.GPU_DIRECT, "B1"),
    GDR_PEERMEM_NCCL_PROBE("gdr-peermem-nccl-probe", Area.GPU_DIRECT, "B2"),
    GDR_DMABUF_SUPPORT("gdr-dmabuf-support", Area.GPU_DIRECT, "B3"),
    RDMA_DEVICES_PRESENT("rdma-devices-present", Area.RDMA, "C1"),
    RDMA_DEVNODES_CONTAINER("rdma-devnodes-container", Area.RDMA, "C2"),
    RDMA_USERSPACE_STACK("rdma-userspace-stack", Area.RDMA, "C3"),
    RDMA_PORT_STATE("rdma-port-state", Area.RDMA, "C4"),
    IB_SUBNET_MANAGER("ib-subnet-manager", Area.RDMA, "C5"),
    ROCE_GID_V2("roce-gid-v2", Area.RDMA, "C6"),
    ROCE_MTU("roce-mtu", Area.RDMA, "C7"),
    RDMA_HCA_FILTER("rdma-hca-filter", Area.RDMA, "C8"),
    MEMLOCK_LIMIT("memlock-limit", Area.LIMITS, "D1"),
    /** Also Jccl's own need: its shm transport lives in /dev/shm. */
    SHM_SIZE("shm-size", Area.LIMITS, "D2"),
    CONTAINER_CAPS_SYSFS("container-caps-sysfs", Area.LIMITS, "D3"),
    TOPO_GPU_NIC_DISTANCE("topo-gpu-nic-distance", Area.TOPOLOGY, "E1"),
    TOPO_NUMA_AFFINITY("topo-numa-affinity", Area.TOPOLOGY, "E2"),
    PCIE_ACS_IOMMU("pcie-acs-iommu", Area.TOPOLOGY, "E3"),
    PCIE_LINK_DEGRADED("pcie-link-degraded", Area.TOPOLOGY, "E4"),
    VM_SRIOV_RELAXED_ORDERING("vm-sriov-relaxed-ordering", Area.TOPOLOGY, "E5"),
    K8S_MPI_HCOLL("k8s-mpi-hcoll", Area.ORCHESTRATION, "F1"),
    GPU_VISIBILITY_MAPPING("gpu-visibility-mapping", Area.GPU_IDENTITY, "G1"),
    CROSS_CONTAINER_GPU_IPC("cross-container-gpu-ipc", Area.GPU_IDENTITY, "G2"),
    NET_SOCKET_IFNAME("net-socket-ifname", Area.NETWORK, "H1"),
    /** Jccl's own: the interface and address a Jccl rank would listen on. */
    JCCL_SOCKET_IFNAME("jccl-socket-ifname", Area.NETWORK, null),
    NET_PORTS_FIREWALL("net-ports-firewall", Area.NETWORK, "H2"),
    DRIVER_KERNEL_USER_MATCH("driver-kernel-user-match", Area.ENVIRONMENT, "I1"),
    NCCL_VERSION_GAPS("nccl-version-gaps", Area.ENVIRONMENT, "I2"),
    ENV_NCCL_UNKNOWN("env-nccl-unknown", Area.ENVIRONMENT, "I3"),
    /** Jccl's own: JCCL_* variables Jccl does not read, and values it would refuse. */
    ENV_JCCL_UNKNOWN("env-jccl-unknown", Area.ENVIRONMENT, null),
    ENV_TRANSPORT_OVERRIDES("env-transport-overrides", Area.ENVIRONMENT, "I4"),
    HUGEPAGES_INFO("hugepages-info", Area.INFO, "J1");

    final String id;
    final Area area;
    /** Section of docs/doctor-checks.md ({@code C6}), or null for Jccl's own checks. */
    final String catalogue;

    Check(String id, Area area, String catalogue) {
        this.id = id;
        this.area = area;
        this.catalogue = catalogue;
    }

    static Check byId(String id) {
        for (Check c : values()) {
            if (c.id.equals(id)) return c;
        }
        throw new IllegalArgumentException("no check " + id);
    }
}
