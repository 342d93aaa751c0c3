/** Jccl's UCX network plugin (RDMA through UCX; {@code JCCL_NET=UCX}), found by the core through its service. */
module dev.jccl.ucx {
    requires dev.jccl.core;
    requires jucx;

    provides dev.jccl.transport.NetPlugin with
            dev.jccl.ucx.UcxPlugin;
}
