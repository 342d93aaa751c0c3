package dev.jccl.bootstrap;

import dev.jccl.Config;
import dev.jccl.UniqueId;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Reads, from the variables a launcher sets, which rank this process is, how many ranks the job has, and where rank 0
 * serves the rendezvous. {@link #detect} is a function of the map it is given (plus name resolution), so every launcher
 * can be tested without starting it.
 *
 * <h2>Rank and size</h2>
 *
 * The first launcher whose rank variable is set wins, in this order:
 *
 * <table>
 * <caption>launchers</caption>
 * <tr><th>launcher</th><th>rank / size</th><th>local rank / size</th><th>root address</th></tr>
 * <tr><td>{@code jccl run}, or by hand</td>
 *     <td>JCCL_RANK / JCCL_WORLD_SIZE</td>
 *     <td>JCCL_LOCAL_RANK / JCCL_LOCAL_SIZE</td>
 *     <td>JCCL_ID or JCCL_ROOT</td></tr>
 * <tr><td>Open MPI {@code mpirun}</td>
 *     <td>OMPI_COMM_WORLD_RANK / _SIZE</td>
 *     <td>OMPI_COMM_WORLD_LOCAL_RANK / _LOCAL_SIZE</td>
 *     <td>JCCL_ID or JCCL_ROOT (pass with {@code -x})</td></tr>
 * <tr><td>torchrun (its workers carry TORCHELASTIC_RUN_ID)</td>
 *     <td>RANK / WORLD_SIZE</td>
 *     <td>LOCAL_RANK / LOCAL_WORLD_SIZE</td>
 *     <td>MASTER_ADDR, port MASTER_PORT + 1 (see below)</td></tr>
 * <tr><td>Slurm {@code srun}</td>
 *     <td>SLURM_PROCID / SLURM_STEP_NUM_TASKS (else SLURM_NTASKS, SLURM_NPROCS)</td>
 *     <td>SLURM_LOCALID / from SLURM_STEP_TASKS_PER_NODE</td>
 *     <td>JCCL_ROOT, else the first host of SLURM_STEP_NODELIST (else SLURM_JOB_NODELIST, SLURM_NODELIST)</td></tr>
 * <tr><td>Kubeflow PyTorchJob, or RANK set by hand</td>
 *     <td>RANK / WORLD_SIZE</td>
 *     <td>LOCAL_RANK / LOCAL_WORLD_SIZE</td>
 *     <td>MASTER_ADDR:MASTER_PORT</td></tr>
 * <tr><td>Kubernetes indexed Job / JobSet</td>
 *     <td>JOB_COMPLETION_INDEX / JCCL_WORLD_SIZE</td>
 *     <td>unknown</td>
 *     <td>JCCL_ROOT</td></tr>
 * </table>
 *
 * {@code JCCL_RANK}, {@code JCCL_WORLD_SIZE}, {@code JCCL_LOCAL_RANK} and {@code JCCL_LOCAL_SIZE} override whatever the
 * launcher says. torchrun comes before Slurm because {@code srun torchrun} is the usual way to run it on Slurm: there
 * {@code SLURM_PROCID} numbers the nodes, not the ranks. Open MPI comes before Slurm for the same reason
 * ({@code mpirun} inside an allocation). A JobSet with several child Jobs restarts {@code JOB_COMPLETION_INDEX} at 0 in
 * each, so it needs {@code JCCL_RANK}.
 *
 * <h2>Root address</h2>
 *
 * {@code JCCL_ID} (a {@link UniqueId} string) is the whole answer when set: root and secret. Otherwise
 * {@code JCCL_ROOT} ({@code host:port}, {@code [ipv6]:port}, or a bare host name, which takes {@code JCCL_PORT} or
 * {@link #DEFAULT_PORT}), otherwise the launcher's own address:
 *
 * <ul>
 *   <li>Slurm: the first host of the step's node list, where {@code srun} places task 0; port {@code JCCL_PORT}, else
 *       {@link #DEFAULT_PORT} + (SLURM_JOB_ID + SLURM_STEP_ID) mod {@link #SLURM_PORT_SPAN}, so that two jobs sharing
 *       their first node do not collide.
 *   <li>torchrun: {@code MASTER_ADDR}; the port is {@code JCCL_PORT}, else {@code MASTER_PORT + 1} when
 *       {@code TORCHELASTIC_USE_AGENT_STORE=True}, because then torchrun's agent already serves its own store on
 *       {@code MASTER_PORT} on that host; else {@code MASTER_PORT}.
 * </ul>
 *
 * Host names are resolved with retries until {@code JCCL_TIMEOUT}, since in Kubernetes the name of rank 0's pod appears
 * in DNS only once that pod runs.
 *
 * <h2>Secret</h2>
 *
 * With {@code JCCL_ID} the secret is in the id. With only a root address, all ranks must still agree on one:
 * {@code JCCL_SECRET} (32 hex digits) if set, else SHA-256 of the root address and of what every rank of one job
 * shares: {@code JCCL_JOB_ID} if set, else Slurm's {@code SLURM_JOB_ID.SLURM_STEP_ID}, Open MPI's
 * {@code PMIX_NAMESPACE} (or {@code OMPI_MCA_ess_base_jobid}), torchrun's {@code TORCHELASTIC_RUN_ID}, or an indexed
 * Job's name (its pods' {@code HOSTNAME} is {@code <job>-<index>}). <b>A derived secret only keeps ranks of different
 * jobs from joining each other by accident; anyone who can see the job id can compute it.</b> For authentication pass
 * {@code JCCL_ID=$(jccl id)} or a random {@code JCCL_SECRET}.
 *
 * <p>Every failure is an {@link IllegalArgumentException} that names the variables found, the one missing or malformed,
 * and what to set.
 */
public final class LaunchEnvironment {
    /** Launcher names in {@link Launch#launcher()}. */
    public static final String JCCL = "jccl";

    public static final String OPEN_MPI = "openmpi";
    public static final String SLURM = "slurm";
    public static final String TORCHRUN = "torchrun";
    public static final String KUBERNETES = "k8s";

    /**
     * Port of the root when a launcher gives only a host. 29500 is PyTorch's MASTER_PORT default and 29400 torchrun's
     * rendezvous default; this stays clear of both.
     */
    public static final int DEFAULT_PORT = 29600;
    /** Under Slurm the default port is {@code DEFAULT_PORT + (job id + step id) mod SLURM_PORT_SPAN}. */
    public static final int SLURM_PORT_SPAN = 1000;

    public static final String JCCL_ID = "JCCL_ID";
    public static final String JCCL_ROOT = "JCCL_ROOT";
    public static final String JCCL_PORT = "JCCL_PORT";
    public static final String JCCL_SECRET = "JCCL_SECRET";
    public static final String JCCL_JOB_ID = "JCCL_JOB_ID";
    public static final String JCCL_RANK = "JCCL_RANK";
    public static final String JCCL_WORLD_SIZE = "JCCL_WORLD_SIZE";
    public static final String JCCL_LOCAL_RANK = "JCCL_LOCAL_RANK";
    public static final String JCCL_LOCAL_SIZE = "JCCL_LOCAL_SIZE";

    private static final String OMPI_RANK = "OMPI_COMM_WORLD_RANK";
    private static final String OMPI_SIZE = "OMPI_COMM_WORLD_SIZE";
    private static final String OMPI_LOCAL_RANK = "OMPI_COMM_WORLD_LOCAL_RANK";
    private static final String OMPI_LOCAL_SIZE = "OMPI_COMM_WORLD_LOCAL_SIZE";
    private static final List<String> OMPI_JOB = List.of("PMIX_NAMESPACE", "OMPI_MCA_ess_base_jobid");

    private static final String SLURM_PROCID = "SLURM_PROCID";
    private static final List<String> SLURM_SIZE = List.of("SLURM_STEP_NUM_TASKS", "SLURM_NTASKS", "SLURM_NPROCS");
    private static final String SLURM_LOCALID = "SLURM_LOCALID";
    private static final String SLURM_NODEID = "SLURM_NODEID";
    private static final String SLURM_STEP_TASKS_PER_NODE = "SLURM_STEP_TASKS_PER_NODE";
    private static final List<String> SLURM_NODELIST =
            List.of("SLURM_STEP_NODELIST", "SLURM_JOB_NODELIST", "SLURM_NODELIST");
    private static final List<String> SLURM_JOB = List.of("SLURM_JOB_ID", "SLURM_JOBID");
    private static final List<String> SLURM_STEP = List.of("SLURM_STEP_ID", "SLURM_STEPID");
    /** Step ids Slurm gives the batch script and the extern step, which are not {@code srun} tasks. */
    private static final List<Long> SLURM_NOT_A_STEP = List.of(4294967294L, 4294967295L);

    private static final String TORCH_RANK = "RANK";
    private static final String TORCH_SIZE = "WORLD_SIZE";
    private static final String TORCH_LOCAL_RANK = "LOCAL_RANK";
    private static final String TORCH_LOCAL_SIZE = "LOCAL_WORLD_SIZE";
    private static final String MASTER_ADDR = "MASTER_ADDR";
    private static final String MASTER_PORT = "MASTER_PORT";
    private static final String TORCHELASTIC_RUN_ID = "TORCHELASTIC_RUN_ID";
    private static final String TORCHELASTIC_USE_AGENT_STORE = "TORCHELASTIC_USE_AGENT_STORE";

    private static final String K8S_INDEX = "JOB_COMPLETION_INDEX";
    private static final String HOSTNAME = "HOSTNAME";

    /**
     * Who this process is in its job.
     *
     * @param rank 0 .. size-1
     * @param size ranks in the job
     * @param id root address and secret of the communicator
     * @param launcher one of {@link #JCCL}, {@link #OPEN_MPI}, {@link #SLURM}, {@link #TORCHRUN}, {@link #KUBERNETES}
     * @param localRank this rank's index among the ranks on its host, or -1 if the launcher does not say
     * @param localSize ranks on this host, or -1 if the launcher does not say
     */
    public record Launch(int rank, int size, UniqueId id, String launcher, int localRank, int localSize) {
        public Launch {
            if (size < 1 || rank < 0 || rank >= size) {
                throw new IllegalArgumentException("rank " + rank + " of size " + size);
            }
            if (id == null || launcher == null) throw new IllegalArgumentException("id and launcher are required");
            if (localRank < -1 || localSize < -1 || localSize == 0) {
                throw new IllegalArgumentException("local rank " + localRank + " of local size " + localSize);
            }
        }

        /** Leaves the secret out: this string ends up in logs. */
        @Override
        public String toString() {
            InetSocketAddress root = id.rootAddress();
            return "Launch[launcher=" + launcher + ", rank=" + rank + ", size=" + size + ", localRank=" + localRank
                    + ", localSize=" + localSize + ", root=" + root.getAddress().getHostAddress() + ":" + root.getPort()
                    + "]";
        }
    }

    /** Name resolution, replaceable in tests. */
    @FunctionalInterface
    interface HostResolver {
        InetAddress resolve(String host) throws UnknownHostException;
    }

    private LaunchEnvironment() {}

    /** Reads the launch from {@code env} (usually {@code System.getenv()}); see the class comment. */
    public static Launch detect(Map<String, String> env) {
        return detect(env, InetAddress::getByName);
    }

    /**
     * Whether {@code env} names this process's rank through any launcher that {@link #detect} reads; tools that can
     * also run as a single process (e.g. {@code jccl perf}) ask this first.
     */
    public static boolean launched(Map<String, String> env) {
        for (String v : List.of(JCCL_RANK, OMPI_RANK, SLURM_PROCID, TORCH_RANK, K8S_INDEX)) {
            if (has(env, v)) return true;
        }
        return false;
    }

    static Launch detect(Map<String, String> env, HostResolver resolver) {
        String launcher = launcher(env);
        Value rank = rank(env, launcher);
        Value size = size(env, launcher, rank);
        if (size.value < 1) throw new IllegalArgumentException(size.what() + ": a job needs at least one rank");
        if (rank.value >= size.value) {
            throw new IllegalArgumentException("rank " + rank.what() + " is outside 0.." + (size.value - 1)
                    + " for size "
                    + size.what()
                    + (size.variable.equals(JCCL_WORLD_SIZE) && !launcher.equals(JCCL) && !launcher.equals(KUBERNETES)
                            ? "; JCCL_WORLD_SIZE overrides the launcher's size, so it must count the whole job"
                            : ""));
        }
        if (launcher.equals(SLURM)) checkSrunStep(env, rank, size);
        int[] local = local(env, launcher, size);
        UniqueId id = id(env, launcher, rank, resolver);
        return new Launch(rank.value, size.value, id, launcher, local[0], local[1]);
    }

    /** A number read from a variable, kept with its name for messages. */
    private record Value(String variable, int value) {
        String what() {
            return variable + "=" + value;
        }
    }

    // ---- which launcher --------------------------------------------------------------------

    private static String launcher(Map<String, String> env) {
        if (has(env, JCCL_RANK)) return JCCL;
        if (has(env, OMPI_RANK)) return OPEN_MPI;
        if (has(env, TORCH_RANK) && has(env, TORCHELASTIC_RUN_ID)) return TORCHRUN;
        if (has(env, SLURM_PROCID)) return SLURM;
        if (has(env, TORCH_RANK)) return TORCHRUN;
        if (has(env, K8S_INDEX)) return KUBERNETES;
        List<String> seen = new ArrayList<>();
        for (String v : List.of(
                JCCL_WORLD_SIZE,
                JCCL_ID,
                JCCL_ROOT,
                JCCL_LOCAL_RANK,
                OMPI_SIZE,
                TORCH_SIZE,
                MASTER_ADDR,
                "SLURM_JOB_ID",
                "SLURM_NTASKS")) {
            if (has(env, v)) seen.add(v);
        }
        throw new IllegalArgumentException("no launcher found: none of JCCL_RANK, " + OMPI_RANK + ", " + SLURM_PROCID
                + ", "
                + TORCH_RANK + " or " + K8S_INDEX + " is set"
                + (seen.isEmpty()
                        ? ""
                        : " (found " + String.join(", ", seen) + ", but nothing that gives this process's rank)")
                + ". Jccl reads, by precedence:"
                + "\n  jccl run:               JCCL_RANK, JCCL_WORLD_SIZE, JCCL_ID"
                + "\n  Open MPI mpirun:        OMPI_COMM_WORLD_RANK, OMPI_COMM_WORLD_SIZE, "
                + "and JCCL_ID or JCCL_ROOT passed with -x"
                + "\n  torchrun:               RANK, WORLD_SIZE, MASTER_ADDR, MASTER_PORT"
                + "\n  Slurm srun:             SLURM_PROCID, SLURM_NTASKS, SLURM_JOB_NODELIST (or JCCL_ROOT)"
                + "\n  Kubeflow PyTorchJob:    RANK, WORLD_SIZE, MASTER_ADDR, MASTER_PORT"
                + "\n  Kubernetes indexed Job: JOB_COMPLETION_INDEX, JCCL_WORLD_SIZE, JCCL_ROOT"
                + "\nStart the program under one of these, set JCCL_RANK, JCCL_WORLD_SIZE and JCCL_ID yourself,"
                + " or call Jccl.init(rank, size, id)."
                + (has(env, "SLURM_JOB_ID") ? " Inside a Slurm allocation, start the ranks with srun." : ""));
    }

    private static String describe(String launcher) {
        return switch (launcher) {
            case JCCL -> "jccl run or set by hand";
            case OPEN_MPI -> "Open MPI mpirun";
            case SLURM -> "Slurm srun";
            case TORCHRUN -> "torchrun / PyTorchJob";
            case KUBERNETES -> "Kubernetes indexed Job";
            default -> launcher;
        };
    }

    // ---- rank, size, local rank ------------------------------------------------------------

    private static Value rank(Map<String, String> env, String launcher) {
        String variable = switch (launcher) {
            case JCCL -> JCCL_RANK;
            case OPEN_MPI -> OMPI_RANK;
            case SLURM -> SLURM_PROCID;
            case TORCHRUN -> TORCH_RANK;
            default -> K8S_INDEX;
        };
        return new Value(variable, count(env, variable));
    }

    private static Value size(Map<String, String> env, String launcher, Value rank) {
        if (has(env, JCCL_WORLD_SIZE)) return new Value(JCCL_WORLD_SIZE, count(env, JCCL_WORLD_SIZE));
        List<String> candidates = switch (launcher) {
            case OPEN_MPI -> List.of(OMPI_SIZE);
            case SLURM -> SLURM_SIZE;
            case TORCHRUN -> List.of(TORCH_SIZE);
            default -> List.of();
        };
        for (String v : candidates) {
            if (has(env, v)) return new Value(v, count(env, v));
        }
        String hint = switch (launcher) {
            case JCCL -> "set JCCL_WORLD_SIZE to the number of ranks";
            case KUBERNETES -> "add JCCL_WORLD_SIZE to the pod template, equal to the Job's completions";
            case SLURM -> "srun sets SLURM_NTASKS; if it was unset on purpose, set JCCL_WORLD_SIZE";
            default -> "the launcher should have set it; set JCCL_WORLD_SIZE to the number of ranks";
        };
        List<String> names = candidates.isEmpty() ? List.of(JCCL_WORLD_SIZE) : candidates;
        throw new IllegalArgumentException(rank.what() + " found (" + describe(launcher) + ") but "
                + String.join(" / ", names) + " is not set: " + hint);
    }

    /** {@code sbatch} runs its script with SLURM_PROCID=0 and the job's SLURM_NTASKS, but without a step id. */
    private static void checkSrunStep(Map<String, String> env, Value rank, Value size) {
        if (size.value == 1) return;
        String step = first(env, SLURM_STEP);
        Long stepId = step == null ? null : parseLongOrNull(env.get(step));
        if (step == null || (stepId != null && SLURM_NOT_A_STEP.contains(stepId))) {
            throw new IllegalArgumentException(rank.what() + " and " + size.what() + " found (Slurm) but "
                    + (step == null
                            ? "no SLURM_STEP_ID"
                            : step + "=" + env.get(step).trim() + " (the batch or extern step)")
                    + ": this is the batch script of the job, not a task started by srun, so the other "
                    + (size.value - 1) + " ranks will never come. Start the program with `srun java ...`"
                    + " (or set JCCL_WORLD_SIZE=1 to run it alone).");
        }
    }

    /** {@code {localRank, localSize}}, -1 where unknown. */
    private static int[] local(Map<String, String> env, String launcher, Value size) {
        Value localRank = null;
        Value localSize = null;
        boolean derivedSize = false;
        if (has(env, JCCL_LOCAL_RANK)) localRank = new Value(JCCL_LOCAL_RANK, count(env, JCCL_LOCAL_RANK));
        if (has(env, JCCL_LOCAL_SIZE)) localSize = new Value(JCCL_LOCAL_SIZE, count(env, JCCL_LOCAL_SIZE));
        String rankVariable = switch (launcher) {
            case OPEN_MPI -> OMPI_LOCAL_RANK;
            case SLURM -> SLURM_LOCALID;
            case TORCHRUN -> TORCH_LOCAL_RANK;
            default -> null;
        };
        String sizeVariable = switch (launcher) {
            case OPEN_MPI -> OMPI_LOCAL_SIZE;
            case TORCHRUN -> TORCH_LOCAL_SIZE;
            default -> null;
        };
        if (localRank == null && rankVariable != null && has(env, rankVariable)) {
            localRank = new Value(rankVariable, count(env, rankVariable));
        }
        if (localSize == null && sizeVariable != null && has(env, sizeVariable)) {
            localSize = new Value(sizeVariable, count(env, sizeVariable));
        }
        if (localSize == null && launcher.equals(SLURM)) {
            int n = slurmTasksOnThisNode(env);
            if (n > 0) {
                localSize = new Value(SLURM_STEP_TASKS_PER_NODE, n);
                derivedSize = true;
            }
        }
        if (localSize != null) {
            if (localSize.value < 1) {
                throw new IllegalArgumentException(localSize.what() + ": a host runs at least one rank");
            }
            if (localSize.value > size.value) {
                throw new IllegalArgumentException(
                        "local size " + localSize.what() + " exceeds the job's size " + size.what());
            }
        }
        if (localRank != null && localSize != null && localRank.value >= localSize.value) {
            // A size worked out from Slurm's task layout is a hint; never fail the job over it.
            if (derivedSize) {
                localSize = null;
            } else {
                throw new IllegalArgumentException("local rank " + localRank.what() + " is outside 0.."
                        + (localSize.value - 1) + " for local size " + localSize.what());
            }
        }
        return new int[] {localRank == null ? -1 : localRank.value, localSize == null ? -1 : localSize.value};
    }

    /**
     * Tasks of this step on this node, from {@code SLURM_STEP_TASKS_PER_NODE} ({@code 2(x3),1}: two on each of the
     * first three nodes, one on the fourth) indexed by {@code SLURM_NODEID}; -1 when either is missing or unreadable.
     */
    static int slurmTasksOnThisNode(Map<String, String> env) {
        if (!has(env, SLURM_STEP_TASKS_PER_NODE) || !has(env, SLURM_NODEID)) return -1;
        Long node = parseLongOrNull(env.get(SLURM_NODEID));
        if (node == null) return -1;
        long index = 0;
        for (String item : env.get(SLURM_STEP_TASKS_PER_NODE).trim().split(",")) {
            String count = item;
            long repeat = 1;
            int paren = item.indexOf("(x");
            if (paren >= 0 && item.endsWith(")")) {
                count = item.substring(0, paren);
                Long r = parseLongOrNull(item.substring(paren + 2, item.length() - 1));
                if (r == null || r < 1) return -1;
                repeat = r;
            }
            Long tasks = parseLongOrNull(count);
            if (tasks == null || tasks < 1 || tasks > Integer.MAX_VALUE) return -1;
            if (node < index + repeat) return tasks.intValue();
            index += repeat;
        }
        return -1;
    }

    // ---- root address and secret -----------------------------------------------------------

    private static UniqueId id(Map<String, String> env, String launcher, Value rank, HostResolver resolver) {
        if (has(env, JCCL_ID)) {
            try {
                return UniqueId.parse(env.get(JCCL_ID).trim());
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException(
                        "JCCL_ID is malformed: " + e.getMessage()
                                + "; pass the exact output of `jccl id` (or UniqueId.create().toString())",
                        e);
            }
        }
        Root root = root(env, launcher, rank);
        InetAddress address = resolve(env, root, resolver);
        return UniqueId.of(new InetSocketAddress(address, root.port), secret(env, launcher, root));
    }

    /** Where the root is, as written in the environment, with the variables it came from. */
    private record Root(String host, int port, String source) {
        String text() {
            return (host.contains(":") ? "[" + host + "]" : host) + ":" + port;
        }
    }

    private static Root root(Map<String, String> env, String launcher, Value rank) {
        if (has(env, JCCL_ROOT)) return parseRoot(env);
        switch (launcher) {
            case SLURM -> {
                String listVariable = first(env, SLURM_NODELIST);
                if (listVariable == null) {
                    throw new IllegalArgumentException(
                            rank.what() + " found (Slurm srun) but no root address: JCCL_ROOT is not set"
                                    + " and neither is SLURM_STEP_NODELIST, SLURM_JOB_NODELIST or SLURM_NODELIST;"
                                    + " export JCCL_ROOT=host:port (the host of rank 0) or JCCL_ID=$(jccl id) "
                                    + "before srun");
                }
                String host;
                try {
                    host = SlurmHostlist.first(env.get(listVariable).trim());
                } catch (IllegalArgumentException e) {
                    throw new IllegalArgumentException(
                            listVariable + " cannot be read: " + e.getMessage()
                                    + "; set JCCL_ROOT=host:port to name the root yourself",
                            e);
                }
                int port;
                String portSource;
                if (has(env, JCCL_PORT)) {
                    port = port(env, JCCL_PORT, 0);
                    portSource = JCCL_PORT;
                } else {
                    port = slurmPort(env);
                    portSource =
                            "default port " + DEFAULT_PORT + " + (SLURM_JOB_ID + SLURM_STEP_ID) mod " + SLURM_PORT_SPAN;
                }
                return new Root(host, port, "first host of " + listVariable + ", " + portSource);
            }
            case TORCHRUN -> {
                if (!has(env, MASTER_ADDR)) {
                    throw new IllegalArgumentException(
                            rank.what() + " found (torchrun / PyTorchJob) but MASTER_ADDR is not set;"
                                    + " set MASTER_ADDR and MASTER_PORT (torchrun --master-addr/--master-port),"
                                    + " or JCCL_ROOT=host:port, or JCCL_ID=$(jccl id)");
                }
                String host = stripBrackets(env.get(MASTER_ADDR).trim());
                if (has(env, JCCL_PORT)) return new Root(host, port(env, JCCL_PORT, 0), "MASTER_ADDR, JCCL_PORT");
                if (!has(env, MASTER_PORT)) {
                    throw new IllegalArgumentException(
                            rank.what() + " and MASTER_ADDR found (torchrun / PyTorchJob) but MASTER_PORT"
                                    + " is not set; set MASTER_PORT (or JCCL_PORT) to a free port on " + host);
                }
                boolean agentStore = "true"
                        .equalsIgnoreCase(env.getOrDefault(TORCHELASTIC_USE_AGENT_STORE, "")
                                .trim());
                int port = port(env, MASTER_PORT, agentStore ? 1 : 0);
                return new Root(
                        host,
                        port,
                        agentStore
                                ? "MASTER_ADDR, MASTER_PORT + 1 (torchrun's agent serves its store on MASTER_PORT)"
                                : "MASTER_ADDR, MASTER_PORT");
            }
            case OPEN_MPI ->
                throw new IllegalArgumentException(rank.what() + " found (Open MPI) but no root address:"
                        + " pass -x JCCL_ID=$(jccl id) or -x JCCL_ROOT=host:port to mpirun");
            case KUBERNETES ->
                throw new IllegalArgumentException(rank.what() + " found (Kubernetes indexed Job) but no root"
                        + " address: set JCCL_ROOT in the pod template to the DNS name of pod 0 through "
                        + "a headless Service,"
                        + " e.g. <job>-0.<service>:" + DEFAULT_PORT
                        + " (the pod spec needs subdomain: <service>), or set JCCL_ID");
            default ->
                throw new IllegalArgumentException(rank.what() + " found but no root address: set JCCL_ID"
                        + " (the output of `jccl id`, or UniqueId.create().toString()) or JCCL_ROOT=host:port");
        }
    }

    /**
     * {@code host:port}, {@code [v6]:port}, {@code host} or {@code [v6]}; a missing port is JCCL_PORT or DEFAULT_PORT.
     */
    private static Root parseRoot(Map<String, String> env) {
        String value = env.get(JCCL_ROOT).trim();
        String shape =
                "; write host:port, [ipv6]:port, or a host name alone (port JCCL_PORT, else " + DEFAULT_PORT + ")";
        if (value.contains("://")) throw new IllegalArgumentException("JCCL_ROOT='" + value + "' has a scheme" + shape);
        String host;
        String portText = null;
        if (value.startsWith("[")) {
            int close = value.indexOf(']');
            if (close < 0) {
                throw new IllegalArgumentException("JCCL_ROOT='" + value + "' opens '[' but never closes it" + shape);
            }
            host = value.substring(1, close);
            String rest = value.substring(close + 1);
            if (!rest.isEmpty()) {
                if (!rest.startsWith(":")) {
                    throw new IllegalArgumentException(
                            "JCCL_ROOT='" + value + "' has '" + rest + "' after ']'" + shape);
                }
                portText = rest.substring(1);
            }
        } else {
            int colon = value.indexOf(':');
            if (colon >= 0 && value.indexOf(':', colon + 1) >= 0) {
                throw new IllegalArgumentException(
                        "JCCL_ROOT='" + value + "' looks like an IPv6 address without brackets" + shape);
            }
            host = colon < 0 ? value : value.substring(0, colon);
            portText = colon < 0 ? null : value.substring(colon + 1);
        }
        if (host.isEmpty()) throw new IllegalArgumentException("JCCL_ROOT='" + value + "' has no host" + shape);
        if (portText != null) {
            Long port = parseLongOrNull(portText);
            if (port == null || port < 1 || port > 65535) {
                throw new IllegalArgumentException(
                        "JCCL_ROOT='" + value + "' has port '" + portText + "', not a number in 1..65535" + shape);
            }
            return new Root(host, port.intValue(), JCCL_ROOT);
        }
        if (has(env, JCCL_PORT)) return new Root(host, port(env, JCCL_PORT, 0), "JCCL_ROOT, JCCL_PORT");
        return new Root(host, DEFAULT_PORT, "JCCL_ROOT, default port " + DEFAULT_PORT);
    }

    private static int slurmPort(Map<String, String> env) {
        String job = first(env, SLURM_JOB);
        String step = first(env, SLURM_STEP);
        Long jobId = job == null ? null : parseLongOrNull(env.get(job));
        Long stepId = step == null ? null : parseLongOrNull(env.get(step));
        long sum = (jobId == null ? 0 : jobId) + (stepId == null ? 0 : stepId);
        return DEFAULT_PORT + (int) Math.floorMod(sum, (long) SLURM_PORT_SPAN);
    }

    private static InetAddress resolve(Map<String, String> env, Root root, HostResolver resolver) {
        Duration patience = has(env, Config.TIMEOUT)
                ? Config.parseDuration(Config.TIMEOUT, env.get(Config.TIMEOUT))
                : Config.DEFAULT_TIMEOUT;
        long start = System.nanoTime();
        long pauseMillis = 50;
        while (true) {
            try {
                return resolver.resolve(root.host);
            } catch (UnknownHostException e) {
                long waited = System.nanoTime() - start;
                // An address literal or a malformed name will not start resolving later.
                if (root.host.contains(":") || waited >= patience.toNanos()) {
                    throw new IllegalArgumentException(
                            "root host '" + root.host + "' (from " + root.source + ") does not resolve"
                                    + (root.host.contains(":")
                                            ? ""
                                            : " after " + seconds(waited) + " s of retries (JCCL_TIMEOUT="
                                                    + seconds(patience.toNanos()) + " s)")
                                    + ": " + e.getMessage()
                                    + "; check the name, or give an IP address in JCCL_ROOT");
                }
                long left = (patience.toNanos() - waited) / 1_000_000;
                try {
                    Thread.sleep(Math.max(1, Math.min(pauseMillis, left)));
                } catch (InterruptedException ie) {
                    Thread.currentThread().interrupt();
                    throw new IllegalStateException("interrupted while resolving root host '" + root.host + "'", ie);
                }
                pauseMillis = Math.min(2000, pauseMillis * 2);
            }
        }
    }

    private static byte[] secret(Map<String, String> env, String launcher, Root root) {
        if (has(env, JCCL_SECRET)) {
            String hex = env.get(JCCL_SECRET).trim();
            // Never echo the value: it is a secret.
            if (hex.length() != 32) {
                throw new IllegalArgumentException("JCCL_SECRET must be 32 hex digits (16 bytes), got " + hex.length()
                        + " characters; make one with `openssl rand -hex 16`");
            }
            try {
                return HexFormat.of().parseHex(hex);
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException(
                        "JCCL_SECRET must be 32 hex digits (16 bytes) and has other characters;"
                                + " make one with `openssl rand -hex 16`");
            }
        }
        String material = "jccl derived secret v1\nroot=" + root.text() + "\njob=" + jobIdentity(env, launcher);
        try {
            byte[] digest = MessageDigest.getInstance("SHA-256").digest(material.getBytes(StandardCharsets.UTF_8));
            return Arrays.copyOf(digest, 16);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is missing from this JVM", e);
        }
    }

    /** What every rank of this job, and no other job, sees alike; "" if nothing is known. */
    static String jobIdentity(Map<String, String> env, String launcher) {
        if (has(env, JCCL_JOB_ID)) {
            return JCCL_JOB_ID + "=" + env.get(JCCL_JOB_ID).trim();
        }
        if (launcher.equals(KUBERNETES)) {
            String job = indexedJobName(env);
            return job == null ? "" : "k8s job=" + job;
        }
        List<String> names = switch (launcher) {
            case OPEN_MPI -> {
                String v = first(env, OMPI_JOB);
                yield v == null ? List.of() : List.of(v);
            }
            case SLURM -> {
                List<String> out = new ArrayList<>();
                String job = first(env, SLURM_JOB);
                String step = first(env, SLURM_STEP);
                if (job != null) out.add(job);
                if (step != null) out.add(step);
                yield out;
            }
            case TORCHRUN -> has(env, TORCHELASTIC_RUN_ID) ? List.of(TORCHELASTIC_RUN_ID) : List.of();
            default -> List.of();
        };
        StringBuilder sb = new StringBuilder();
        for (String n : names) {
            sb.append(n).append('=').append(env.get(n).trim()).append('\n');
        }
        return sb.toString();
    }

    /** An indexed Job's pods are named {@code <job>-<index>}, with a random suffix in the pod name. */
    private static String indexedJobName(Map<String, String> env) {
        if (!has(env, HOSTNAME)) return null;
        String host = env.get(HOSTNAME).trim().toLowerCase(Locale.ROOT);
        String index = "-" + env.get(K8S_INDEX).trim();
        int dot = host.indexOf('.');
        if (dot >= 0) host = host.substring(0, dot);
        if (host.matches(".+-[0-9]+-[a-z0-9]{5}")
                && host.substring(0, host.length() - 6).endsWith(index)) {
            host = host.substring(0, host.length() - 6);
        }
        if (!host.endsWith(index) || host.length() == index.length()) return null;
        return host.substring(0, host.length() - index.length());
    }

    // ---- reading variables -----------------------------------------------------------------

    private static boolean has(Map<String, String> env, String variable) {
        String v = env.get(variable);
        return v != null && !v.isBlank();
    }

    /** The first of {@code variables} that is set, or null. */
    private static String first(Map<String, String> env, List<String> variables) {
        for (String v : variables) {
            if (has(env, v)) return v;
        }
        return null;
    }

    private static int count(Map<String, String> env, String variable) {
        String raw = env.get(variable).trim();
        Long v = parseLongOrNull(raw);
        if (v == null || v > Integer.MAX_VALUE) {
            throw new IllegalArgumentException(variable + "='" + raw + "' is not a non-negative integer");
        }
        return v.intValue();
    }

    /** A port from {@code variable}, plus {@code offset}, checked to lie in 1..65535. */
    private static int port(Map<String, String> env, String variable, int offset) {
        String raw = env.get(variable).trim();
        Long v = parseLongOrNull(raw);
        if (v == null || v < 1 || v + offset > 65535) {
            throw new IllegalArgumentException(variable + "='" + raw + "' is not a port"
                    + (offset == 0
                            ? " in 1..65535"
                            : " in 1.." + (65535 - offset) + " (the root listens on " + variable + " + " + offset
                                    + ")"));
        }
        return (int) (v + offset);
    }

    /** A decimal number of at most 18 digits, or null. */
    private static Long parseLongOrNull(String s) {
        String t = s.trim();
        if (t.isEmpty() || t.length() > 18) return null;
        for (int i = 0; i < t.length(); i++) {
            char c = t.charAt(i);
            if (c < '0' || c > '9') return null;
        }
        return Long.parseLong(t);
    }

    private static String stripBrackets(String host) {
        return host.startsWith("[") && host.endsWith("]") ? host.substring(1, host.length() - 1) : host;
    }

    private static String seconds(long nanos) {
        return String.format(Locale.ROOT, "%.1f", nanos / 1e9);
    }
}
