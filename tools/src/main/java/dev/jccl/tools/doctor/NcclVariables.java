package dev.jccl.tools.doctor;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The {@code NCCL_*} variables some NCCL release reads, with the first and last release that reads each: Appendix A of
 * docs/doctor-checks.md (NCCL 2.3.5 … 2.30.7, found by scanning every release's source for its parameters). Regenerate
 * it when a newer NCCL adds names.
 */
final class NcclVariables {
    /** The newest release the table covers. */
    static final Version NEWEST_COVERED = Version.of("2.30.7");

    /** Set by images and frameworks, not read by NCCL: fine to see. */
    static final Map<String, String> NOT_NCCL_BUT_FINE = Map.of(
            "NCCL_VERSION", "set by nvidia/cuda images to the NCCL they ship",
            "NCCL_ASYNC_ERROR_HANDLING", "read by PyTorch, not NCCL (now TORCH_NCCL_ASYNC_ERROR_HANDLING)",
            "NCCL_BLOCKING_WAIT", "read by PyTorch, not NCCL (now TORCH_NCCL_BLOCKING_WAIT)",
            "NCCL_DESYNC_DEBUG", "read by PyTorch, not NCCL (now TORCH_NCCL_DESYNC_DEBUG)");

    /** Documented once, removed before the table starts. */
    static final Map<String, String> REMOVED_EARLY = Map.of(
            "NCCL_CHECKS_DISABLE", "deprecated in NCCL 2.2.12",
            "NCCL_SINGLE_RING_THRESHOLD", "removed in NCCL 2.3");

    /** What replaced a removed variable, where something did. */
    static final Map<String, String> REPLACED_BY = Map.of(
            "NCCL_IB_GDR_LEVEL", "NCCL_NET_GDR_LEVEL",
            "NCCL_IB_CUDA_SUPPORT", "NCCL_NET_GDR_LEVEL",
            "NCCL_LL_THRESHOLD", "NCCL_PROTO",
            "NCCL_TREE_THRESHOLD", "NCCL_ALGO",
            "NCCL_THREAD_THRESHOLD", "NCCL_THREAD_THRESHOLDS");

    /** A variable's span of releases. */
    record Span(Version first, Version last) {}

    private static final String TABLE = """
            NCCL_AGG_ALLOC_MODE 2.10.3 2.12.12
            NCCL_AGG_CHANNEL_SIZE 2.10.3 2.19.4
            NCCL_ALGO 2.5.6 2.30.7
            NCCL_ALLGATHERV_ENABLE 2.29.2 2.30.7
            NCCL_ALLOC_P2P_NET_LL_BUFFERS 2.14.3 2.30.7
            NCCL_BUFFSIZE 2.3.5 2.30.7
            NCCL_CGA_CLUSTER_SIZE 2.15.1 2.30.7
            NCCL_CHECK_MODE 2.29.7 2.30.7
            NCCL_CHECK_POINTERS 2.3.5 2.30.7
            NCCL_CHUNK_SIZE 2.12.7 2.30.7
            NCCL_COLLNET_ENABLE 2.6.4 2.30.7
            NCCL_COLLNET_NODE_THRESHOLD 2.9.9 2.30.7
            NCCL_COMM_BLOCKING 2.14.3 2.30.7
            NCCL_COMM_ID 2.3.5 2.30.7
            NCCL_COMM_SHRINK_SHARE_RESOURCES 2.27.3 2.30.7
            NCCL_COMM_SPLIT_SHARE_RESOURCES 2.18.1 2.30.7
            NCCL_CONF_FILE 2.23.4 2.30.7
            NCCL_CONNECT_ROUND_MAX_PEERS 2.19.4 2.30.7
            NCCL_CREATE_THREAD_CONTEXT 2.13.4 2.30.4
            NCCL_CROSS_NIC 2.5.6 2.30.7
            NCCL_CTA_POLICY 2.27.3 2.30.7
            NCCL_CUDA_PATH 2.13.4 2.20.5
            NCCL_CUMEM_ENABLE 2.18.1 2.30.7
            NCCL_CUMEM_HOST_ENABLE 2.23.4 2.30.7
            NCCL_DEBUG 2.3.5 2.30.7
            NCCL_DEBUG_FILE 2.3.5 2.30.7
            NCCL_DEBUG_SUBSYS 2.3.5 2.30.7
            NCCL_DEBUG_TIMESTAMP_FORMAT 2.26.2 2.30.7
            NCCL_DEBUG_TIMESTAMP_LEVELS 2.26.2 2.30.7
            NCCL_DEV_API_JIT 2.30.7 2.30.7
            NCCL_DISABLE_MEM_MANAGER 2.29.7 2.30.7
            NCCL_DMABUF_ENABLE 2.13.4 2.30.7
            NCCL_ELASTIC_BUFFER_REGISTER 2.30.3 2.30.7
            NCCL_ENABLE_VERSION_CHECK 2.29.2 2.30.7
            NCCL_ENV_PLUGIN 2.28.7 2.30.7
            NCCL_GDAKI_USE_RELIABLE_DB 2.29.7 2.30.7
            NCCL_GDRCOPY_ENABLE 2.9.6 2.30.7
            NCCL_GDRCOPY_FIFO_ENABLE 2.9.6 2.30.7
            NCCL_GDRCOPY_FLUSH_ENABLE 2.9.6 2.30.7
            NCCL_GDRCOPY_SYNC_ENABLE 2.12.7 2.30.7
            NCCL_GDRCOPY_TAIL_ENABLE 2.9.6 2.11.4
            NCCL_GDR_FLUSH_DISABLE 2.3.5 2.30.7
            NCCL_GIN_CONNECTION_RAIL 2.30.7 2.30.7
            NCCL_GIN_COUNTER_POOL_SIZE 2.28.7 2.29.7
            NCCL_GIN_ENABLE 2.28.7 2.30.7
            NCCL_GIN_ERROR_QUERY_SEC 2.28.7 2.30.7
            NCCL_GIN_EXCLUSIVE_CONTEXTS 2.29.7 2.29.7
            NCCL_GIN_GDAKI_MAX_DEST_RD_ATOMIC 2.30.3 2.30.7
            NCCL_GIN_GDAKI_MAX_QP_RD_ATOMIC 2.30.3 2.30.7
            NCCL_GIN_GDAKI_NIC_HANDLER 2.28.7 2.30.7
            NCCL_GIN_GDAKI_QP_DEPTH 2.28.7 2.30.7
            NCCL_GIN_IB_TC 2.30.7 2.30.7
            NCCL_GIN_NCONNECTIONS 2.29.7 2.30.7
            NCCL_GIN_NCONTEXTS 2.28.7 2.29.7
            NCCL_GIN_PLUGIN 2.29.7 2.30.7
            NCCL_GIN_PLUGIN_REF_COUNT 2.29.7 2.30.7
            NCCL_GIN_PROXY_QUEUE_SIZE 2.28.7 2.30.7
            NCCL_GIN_SIGNAL_POOL_SIZE 2.28.7 2.29.7
            NCCL_GIN_TYPE 2.28.7 2.30.7
            NCCL_GRAPH 2.5.6 2.5.7
            NCCL_GRAPH_DUMP_FILE 2.6.4 2.30.7
            NCCL_GRAPH_DUMP_FILE_RANK 2.6.4 2.30.7
            NCCL_GRAPH_FILE 2.6.4 2.30.7
            NCCL_GRAPH_HELPER_DISABLE 2.11.4 2.30.7
            NCCL_GRAPH_MIXING_SUPPORT 2.13.4 2.30.7
            NCCL_GRAPH_REGISTER 2.11.4 2.30.7
            NCCL_GRAPH_STREAM_ORDERING 2.30.7 2.30.7
            NCCL_GROUP_CUDA_STREAM 2.3.5 2.30.7
            NCCL_HOSTID 2.5.6 2.30.7
            NCCL_IBVERBS_LIB 2.30.3 2.30.7
            NCCL_IB_ADAPTIVE_ROUTING 2.16.2 2.30.7
            NCCL_IB_ADDR_FAMILY 2.21.5 2.30.7
            NCCL_IB_ADDR_RANGE 2.21.5 2.30.7
            NCCL_IB_AR_THRESHOLD 2.6.4 2.30.7
            NCCL_IB_CUDA_SUPPORT 2.3.5 2.3.7
            NCCL_IB_DATA_DIRECT 2.27.3 2.30.7
            NCCL_IB_DEVICE_PCI_ORDER 2.29.7 2.30.7
            NCCL_IB_DISABLE 2.3.5 2.30.7
            NCCL_IB_ECE_ENABLE 2.23.4 2.30.7
            NCCL_IB_FIFO_TC 2.22.3 2.30.7
            NCCL_IB_GDR_LEVEL 2.3.5 2.3.7
            NCCL_IB_GID_INDEX 2.3.5 2.30.7
            NCCL_IB_HCA 2.3.5 2.30.7
            NCCL_IB_MERGE_NICS 2.20.3 2.30.7
            NCCL_IB_MERGE_VFS 2.18.1 2.30.7
            NCCL_IB_MQP_RETRY_ALL 2.24.3 2.30.7
            NCCL_IB_MQP_RETRY_CNT 2.24.3 2.30.7
            NCCL_IB_MQP_RETRY_SLEEP_MSEC 2.24.3 2.30.7
            NCCL_IB_OOO_RQ 2.30.3 2.30.7
            NCCL_IB_PCI_RELAXED_ORDERING 2.12.7 2.30.7
            NCCL_IB_PKEY 2.8.3 2.30.7
            NCCL_IB_PREPOST_RECEIVE_WORK_REQUESTS 2.29.7 2.30.7
            NCCL_IB_QPS_PER_CONNECTION 2.10.3 2.30.7
            NCCL_IB_QUERY_PORT_SPEED 2.30.7 2.30.7
            NCCL_IB_RECEIVER_SIDE_MATCHING_SCHEME 2.29.7 2.30.7
            NCCL_IB_RESILIENCY_PORT_FAILOVER 2.29.7 2.30.7
            NCCL_IB_RESILIENCY_PORT_FAILOVER_MAX_ATTEMPTS 2.29.7 2.30.7
            NCCL_IB_RESILIENCY_PORT_FAILOVER_PROBE_DELAY 2.29.7 2.30.7
            NCCL_IB_RESILIENCY_PORT_RECOVERY 2.30.3 2.30.7
            NCCL_IB_RESILIENCY_PORT_RECOVERY_ACK_TIMEOUT 2.30.3 2.30.7
            NCCL_IB_RESILIENCY_PORT_RECOVERY_ALIVE_MSG_BATCH_INTERVAL 2.30.3 2.30.7
            NCCL_IB_RESILIENCY_PORT_RECOVERY_ALIVE_MSG_BATCH_SIZE 2.30.3 2.30.7
            NCCL_IB_RESILIENCY_PORT_RECOVERY_ALIVE_MSG_SEQUENCE_SIZE 2.30.3 2.30.7
            NCCL_IB_RESILIENCY_PORT_RECOVERY_ALIVE_MSG_TIMEOUT 2.30.3 2.30.7
            NCCL_IB_RESILIENCY_PORT_RECOVERY_ATTEMPTS_MAX 2.30.3 2.30.7
            NCCL_IB_RESILIENCY_PORT_RECOVERY_START_DELAY 2.30.3 2.30.7
            NCCL_IB_RETRY_CNT 2.3.5 2.30.7
            NCCL_IB_RETURN_ASYNC_EVENTS 2.23.4 2.30.7
            NCCL_IB_ROCE_VERSION_NUM 2.21.5 2.30.7
            NCCL_IB_ROUTABLE_FLID_GID_INDEX 2.22.3 2.30.7
            NCCL_IB_SL 2.3.5 2.30.7
            NCCL_IB_SPLIT_DATA_ON_QPS 2.18.1 2.30.7
            NCCL_IB_SUBNET_AWARE_ROUTING 2.30.7 2.30.7
            NCCL_IB_SUBNET_PREFIX_LEN 2.30.7 2.30.7
            NCCL_IB_TC 2.3.5 2.30.7
            NCCL_IB_TIMEOUT 2.3.5 2.30.7
            NCCL_IB_USE_INLINE 2.8.3 2.30.7
            NCCL_IB_WARN_RAIL_LOCAL 2.24.3 2.30.7
            NCCL_IGNORE_COLLNET_MISMATCH 2.30.3 2.30.7
            NCCL_IGNORE_CPU_AFFINITY 2.4.6 2.30.7
            NCCL_IGNORE_DISABLED_P2P 2.12.7 2.30.7
            NCCL_IGNORE_NET_MISMATCH 2.30.3 2.30.7
            NCCL_IPC_USE_ABSTRACT_SOCKET 2.29.2 2.30.7
            NCCL_L1_SHARED_MEMORY_CARVEOUT 2.12.10 2.30.7
            NCCL_LAUNCH_MODE 2.3.5 2.30.7
            NCCL_LAUNCH_ORDER_IMPLICIT 2.26.2 2.30.7
            NCCL_LAUNCH_RACE_FATAL 2.26.2 2.30.7
            NCCL_LEGACY_CUDA_REGISTER 2.24.3 2.30.7
            NCCL_LL128_BUFFSIZE 2.7.3 2.30.7
            NCCL_LL128_C2C 2.27.3 2.30.7
            NCCL_LL128_NTHREADS 2.5.6 2.30.7
            NCCL_LL_BUFFSIZE 2.7.3 2.30.7
            NCCL_LL_THRESHOLD 2.3.5 2.4.8
            NCCL_LOCAL_REGISTER 2.19.1 2.30.7
            NCCL_LSA_TEAM_SIZE 2.29.7 2.30.7
            NCCL_MAX_CTAS 2.17.1 2.30.7
            NCCL_MAX_NCHANNELS 2.5.6 2.30.7
            NCCL_MAX_NRINGS 2.3.5 2.30.7
            NCCL_MAX_P2P_NCHANNELS 2.7.3 2.30.7
            NCCL_MEM_SYNC_DOMAIN 2.16.2 2.30.7
            NCCL_MIN_CTAS 2.17.1 2.30.7
            NCCL_MIN_NCHANNELS 2.5.6 2.30.7
            NCCL_MIN_NRINGS 2.3.5 2.30.7
            NCCL_MIN_P2P_NCHANNELS 2.7.3 2.30.7
            NCCL_MLOPART_RDMA_ENABLE 2.30.7 2.30.7
            NCCL_MNNVL 2.20.3 2.20.5
            NCCL_MNNVL_CLIQUE_ID 2.23.4 2.30.7
            NCCL_MNNVL_CROSS_CLIQUE 2.30.3 2.30.7
            NCCL_MNNVL_ENABLE 2.21.5 2.30.7
            NCCL_MNNVL_RAIL_PER_HOST 2.28.7 2.30.7
            NCCL_MNNVL_SCATTER_NETS_ENABLE 2.27.5 2.30.7
            NCCL_MNNVL_UUID 2.25.1 2.30.7
            NCCL_MULTI_RANK_GPU_ENABLE 2.30.3 2.30.7
            NCCL_MULTI_SEGMENT_REGISTER 2.29.2 2.30.7
            NCCL_NCCL_ALLOC_P2P_NET_LL_BUFFERS 2.14.3 2.16.2
            NCCL_NCHANNELS_PER_NET_PEER 2.12.7 2.30.7
            NCCL_NET 2.10.3 2.30.7
            NCCL_NETDEVS_POLICY 2.28.3 2.30.7
            NCCL_NET_DISABLE_INTRA 2.12.7 2.30.7
            NCCL_NET_FORCE_FLUSH 2.15.1 2.30.7
            NCCL_NET_FORCE_MERGE 2.24.3 2.30.7
            NCCL_NET_GDR_C2C 2.26.2 2.30.7
            NCCL_NET_GDR_LEVEL 2.4.2 2.30.7
            NCCL_NET_GDR_MLOPART 2.30.7 2.30.7
            NCCL_NET_GDR_READ 2.3.5 2.30.7
            NCCL_NET_MERGE_LEVEL 2.24.3 2.30.7
            NCCL_NET_MERGE_POLICY 2.30.7 2.30.7
            NCCL_NET_OPTIONAL_RECV_COMPLETION 2.24.3 2.30.7
            NCCL_NET_OVERHEAD 2.18.1 2.30.7
            NCCL_NET_PLUGIN 2.11.4 2.30.7
            NCCL_NET_PLUGIN_REF_COUNT 2.26.2 2.30.7
            NCCL_NET_SHARED_BUFFERS 2.8.3 2.30.7
            NCCL_NET_SHARED_COMMS 2.12.7 2.30.7
            NCCL_NO_CACHE 2.29.7 2.30.7
            NCCL_NSOCKS_PERTHREAD 2.4.8 2.30.7
            NCCL_NTHREADS 2.3.5 2.30.7
            NCCL_NUM_RMA_CTX 2.29.2 2.30.7
            NCCL_NVB_DISABLE 2.9.9 2.30.7
            NCCL_NVB_PRECONNECT 2.9.9 2.30.7
            NCCL_NVLINK_UTIL_CENTRIC_SCHED_ENABLE 2.27.3 2.30.7
            NCCL_NVLSTREE_MAX_CHUNKSIZE 2.20.3 2.30.7
            NCCL_NVLS_CHUNKSIZE 2.21.5 2.30.7
            NCCL_NVLS_ENABLE 2.17.1 2.30.7
            NCCL_NVLS_NCHANNELS 2.17.1 2.30.7
            NCCL_NVTX_DISABLE 2.28.3 2.30.7
            NCCL_OOB_NET_ENABLE 2.23.4 2.30.7
            NCCL_OOB_NET_IFNAME 2.23.4 2.30.7
            NCCL_P2P_DIRECT_DISABLE 2.12.12 2.30.7
            NCCL_P2P_DISABLE 2.3.5 2.30.7
            NCCL_P2P_EPOCH_ENABLE 2.29.2 2.30.7
            NCCL_P2P_LEVEL 2.3.5 2.30.7
            NCCL_P2P_LL_THRESHOLD 2.14.3 2.30.7
            NCCL_P2P_MAX_PEERS 2.30.3 2.30.7
            NCCL_P2P_NET_CHUNKSIZE 2.14.3 2.30.7
            NCCL_P2P_NVL_CHUNKSIZE 2.16.2 2.30.7
            NCCL_P2P_PCI_CHUNKSIZE 2.16.2 2.30.7
            NCCL_P2P_PER_CHANNEL_NET_BW 2.29.2 2.30.7
            NCCL_P2P_PXN_LEVEL 2.12.7 2.30.7
            NCCL_P2P_READ_ENABLE 2.7.3 2.30.7
            NCCL_P2P_SCHEDULE_GROUP_SIZE 2.28.7 2.30.7
            NCCL_P2P_USE_CUDA_MEMCPY 2.13.4 2.30.7
            NCCL_PARAM_DUMP_ALL 2.30.3 2.30.7
            NCCL_PAT_ENABLE 2.23.4 2.30.7
            NCCL_PROFILER_PLUGIN 2.23.4 2.30.7
            NCCL_PROGRESS_APPENDOP_FREQ 2.16.5 2.30.7
            NCCL_PROTO 2.5.6 2.30.7
            NCCL_PROXY_APPEND_BATCH_SIZE 2.16.2 2.30.7
            NCCL_PROXY_CPUSET 2.28.3 2.30.7
            NCCL_PROXY_DUMP_SIGNAL 2.14.3 2.30.7
            NCCL_PROXY_PROFILE 2.12.7 2.22.3
            NCCL_PXN_C2C 2.27.3 2.30.7
            NCCL_PXN_DISABLE 2.12.7 2.30.7
            NCCL_RAS_ADDR 2.24.3 2.30.7
            NCCL_RAS_ENABLE 2.24.3 2.30.7
            NCCL_RAS_TIMEOUT_FACTOR 2.24.3 2.30.7
            NCCL_REPORT_CONNECT_PROGRESS 2.19.4 2.30.7
            NCCL_RINGS 2.3.5 2.4.8
            NCCL_RMA_DISABLE 2.30.7 2.30.7
            NCCL_RMA_PLUGIN 2.30.7 2.30.7
            NCCL_RMA_PLUGIN_REF_COUNT 2.30.7 2.30.7
            NCCL_RMA_PROXY_DUMP_SIGNAL 2.29.2 2.30.7
            NCCL_RMA_PROXY_QUEUE_SIZE 2.29.2 2.30.7
            NCCL_RUNTIME_CONNECT 2.22.3 2.30.7
            NCCL_SET_CPU_STACK_SIZE 2.28.3 2.30.7
            NCCL_SET_STACK_SIZE 2.9.6 2.30.7
            NCCL_SET_THREAD_NAME 2.12.7 2.30.7
            NCCL_SHADOW_MEMPOOL_MAX_SIZE 2.30.7 2.30.7
            NCCL_SHARED_BUFF_COUNT 2.8.3 2.8.4
            NCCL_SHM_DISABLE 2.3.5 2.30.7
            NCCL_SHM_LOCALITY 2.13.4 2.30.7
            NCCL_SHM_MEMCPY_MODE 2.13.4 2.30.4
            NCCL_SHM_USE_CUDA_MEMCPY 2.13.4 2.30.4
            NCCL_SINGLE_PROC_MEM_REG_ENABLE 2.28.3 2.30.7
            NCCL_SOCKET_FAMILY 2.3.5 2.30.7
            NCCL_SOCKET_IFNAME 2.3.5 2.30.7
            NCCL_SOCKET_INLINE 2.27.3 2.30.7
            NCCL_SOCKET_MAGIC 2.30.7 2.30.7
            NCCL_SOCKET_MIN_TASKSIZE 2.27.3 2.30.7
            NCCL_SOCKET_NTHREADS 2.4.8 2.30.7
            NCCL_SOCKET_POLL_TIMEOUT_MSEC 2.29.2 2.30.7
            NCCL_SOCKET_RCVBUF 2.27.3 2.30.7
            NCCL_SOCKET_RETRY_CNT 2.24.3 2.30.7
            NCCL_SOCKET_RETRY_SLEEP_MSEC 2.24.3 2.30.7
            NCCL_SOCKET_SNDBUF 2.27.3 2.30.7
            NCCL_SYM_CE_THRESHOLD 2.29.2 2.30.7
            NCCL_SYM_CTAS 2.27.3 2.30.7
            NCCL_SYM_GIN_KERNELS_ENABLE 2.29.7 2.30.7
            NCCL_SYM_KERNEL 2.27.3 2.30.7
            NCCL_SYM_NOWIN_ENABLE 2.29.2 2.30.7
            NCCL_SYM_REUSE_SYSMEM_HANDLES 2.30.4 2.30.7
            NCCL_SYM_RS_GIN_CHUNK_SIZE 2.30.7 2.30.7
            NCCL_SYM_TMA_ENABLE 2.30.3 2.30.7
            NCCL_THREAD_THRESHOLD 2.3.5 2.4.8
            NCCL_THREAD_THRESHOLDS 2.5.6 2.30.7
            NCCL_TOPO_DUMP_FILE 2.6.4 2.30.7
            NCCL_TOPO_DUMP_FILE_RANK 2.6.4 2.30.7
            NCCL_TOPO_FILE 2.6.4 2.30.7
            NCCL_TOPO_SPLIT_MLOPART 2.30.7 2.30.7
            NCCL_TREE_THRESHOLD 2.4.2 2.4.8
            NCCL_TUNER_PLUGIN 2.19.1 2.30.7
            NCCL_UID_STAGGER_RATE 2.23.4 2.30.7
            NCCL_UID_STAGGER_THRESHOLD 2.23.4 2.30.7
            NCCL_UNPACK_DOUBLE_NCHANNELS 2.22.3 2.30.7
            NCCL_WARN_ENABLE_DEBUG_INFO 2.19.4 2.30.7
            NCCL_WIN_ENABLE 2.27.3 2.30.7
            NCCL_WIN_STRIDE 2.27.3 2.30.7
            NCCL_WORK_ARGS_BYTES 2.22.3 2.30.7
            NCCL_WORK_FIFO_BYTES 2.22.3 2.30.7
            NCCL_WORK_FIFO_DEPTH 2.13.4 2.21.5
            """;

    private static final Map<String, Span> SPANS = parse();

    private NcclVariables() {}

    /** The releases that read {@code name}, or null if none does. */
    static Span span(String name) {
        return SPANS.get(name);
    }

    static Set<String> names() {
        return SPANS.keySet();
    }

    /**
     * The known name closest to {@code name}: within two edits (a swap counts as one), or made of the same words in
     * another order. Null if none is that close.
     */
    static String nearest(String name) {
        String best = null;
        int bestDistance = 3;
        Set<String> words = new HashSet<>(Arrays.asList(name.split("_")));
        for (String known : SPANS.keySet()) {
            if (new HashSet<>(Arrays.asList(known.split("_"))).equals(words)) return known;
            int d = editDistance(name, known);
            if (d < bestDistance) {
                bestDistance = d;
                best = known;
            }
        }
        return best;
    }

    /** Damerau-Levenshtein distance, optimal-string-alignment form (adjacent swaps cost one). */
    static int editDistance(String a, String b) {
        int[][] d = new int[a.length() + 1][b.length() + 1];
        for (int i = 0; i <= a.length(); i++) d[i][0] = i;
        for (int j = 0; j <= b.length(); j++) d[0][j] = j;
        for (int i = 1; i <= a.length(); i++) {
            for (int j = 1; j <= b.length(); j++) {
                int cost = a.charAt(i - 1) == b.charAt(j - 1) ? 0 : 1;
                d[i][j] = Math.min(Math.min(d[i - 1][j] + 1, d[i][j - 1] + 1), d[i - 1][j - 1] + cost);
                if (i > 1 && j > 1 && a.charAt(i - 1) == b.charAt(j - 2) && a.charAt(i - 2) == b.charAt(j - 1)) {
                    d[i][j] = Math.min(d[i][j], d[i - 2][j - 2] + 1);
                }
            }
        }
        return d[a.length()][b.length()];
    }

    private static Map<String, Span> parse() {
        Map<String, Span> out = new LinkedHashMap<>();
        for (String line : TABLE.strip().split("\n")) {
            String[] f = line.trim().split("\\s+");
            out.put(f[0], new Span(Version.of(f[1]), Version.of(f[2])));
        }
        return out;
    }

    /** For tests: every name with its span, in table order. */
    static List<String> rows() {
        List<String> rows = new ArrayList<>();
        for (var e : SPANS.entrySet()) {
            rows.add(
                    e.getKey() + " " + e.getValue().first() + " " + e.getValue().last());
        }
        return rows;
    }
}
