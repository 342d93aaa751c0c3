/** Jccl on GPU memory: device buffers, and collectives on them through NCCL or staged through pinned host memory. */
module dev.jccl.cuda {
    requires dev.jccl.core;

    exports dev.jccl.cuda;
}
