package dev.jccl.tools.doctor;

/** The headings the report groups checks under, in the catalogue's order. */
enum Area {
    CONTEXT("Context"),
    GPU_DIRECT("GPU Direct RDMA"),
    RDMA("RDMA devices and ports"),
    LIMITS("Limits and containers"),
    TOPOLOGY("Topology, PCIe, virtualization"),
    ORCHESTRATION("Orchestration / MPI"),
    GPU_IDENTITY("GPU identity and IPC across containers"),
    NETWORK("Network interfaces and ports"),
    ENVIRONMENT("Versions and environment"),
    INFO("Informational");

    final String title;

    Area(String title) {
        this.title = title;
    }
}
