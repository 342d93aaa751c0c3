package dev.jccl.cuda;

import dev.jccl.JcclException;
import dev.jccl.JcclTimeoutException;
import dev.jccl.PeerFailedException;
import dev.jccl.concurrent.Futures;
import dev.jccl.concurrent.IdleStrategy;
import dev.jccl.runtime.HostPath;
import java.lang.foreign.MemorySegment;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * Collectives on device buffers through pinned host memory, pipelined: while chunk {@code k} is in the host collective,
 * chunk {@code k+1} is being copied device→host and chunk {@code k-1} host→device, on two CUDA streams (a GPU copies
 * both ways at once), so that for large buffers the copies hide behind the network. This is what NCCL does when GPU
 * Direct RDMA is not there.
 *
 * <pre>
 *  slot:          0        1        2        3        0 (reused once chunk 0 is back on the device)
 *  to host     [ D2H 0 ][ D2H 1 ][ D2H 2 ][ D2H 3 ]   [ D2H 4 ] …
 *  exchange             [ host collective 0 ][ 1 ][ 2 ] …
 *  to device                                 [ H2D 0 ][ H2D 1 ] …
 * </pre>
 *
 * <p>The host collective of each chunk is the communicator's own, run on its {@link HostPath} within the device
 * operation's turn, so reductions, AVG, types and error reports are exactly the host path's, and no other call can come
 * between a device operation's chunks. A chunk's host collective runs on the pipeline's thread while the GPU copies the
 * next chunk in and the previous one out. A failure anywhere (a copy, a peer, a deadline) is thrown with the operation,
 * the chunk and the phase named, and fails the communicator, which tells the peers at once rather than at their
 * deadline. Not thread-safe: one thread (the one holding the device operation's turn) drives it.
 */
final class StagedCollectives implements AutoCloseable {
    /**
     * Extra time the pipeline gives a host collective beyond the deadline, so that the communicator's own, more precise
     * report comes first.
     */
    private static final long HOST_GRACE_NANOS = TimeUnit.SECONDS.toNanos(5);

    private final DeviceMemory memory;
    private final long slotBytes;
    private final int slotCount;
    private final long timeoutNanos;
    private final StagingListener listener;
    private DeviceStream toHostStream;
    private DeviceStream toDeviceStream;
    private MemorySegment[] slots;

    /**
     * @param slotBytes bytes of one staging slot: the chunk size (one block's chunk is {@code slotBytes / ranks} for
     *     AllGather, ReduceScatter and AllToAll)
     * @param slotCount slots in flight (at least 2: one filling while one is exchanged)
     */
    StagedCollectives(
            int ranks, DeviceMemory memory, long slotBytes, int slotCount, Duration timeout, StagingListener listener) {
        if (slotCount < 2) throw new IllegalArgumentException("staging needs at least 2 slots, got " + slotCount);
        this.memory = memory;
        // Every block of the widest layout must hold at least one element of the widest type.
        this.slotBytes = Math.max(slotBytes, 16L * ranks);
        this.slotCount = slotCount;
        this.timeoutNanos = timeout.toNanos();
        this.listener = listener;
    }

    long slotBytes() {
        return slotBytes;
    }

    int slotCount() {
        return slotCount;
    }

    /**
     * Runs {@code op} to completion on the calling thread, which holds the turn; {@code label} names it in errors
     * ({@code AllReduce #7}).
     */
    void run(StagedOp op, String label, HostPath host) {
        ensureResources();
        int n = op.chunks();
        DeviceEvent[] toHost = new DeviceEvent[n];
        @SuppressWarnings({"unchecked", "rawtypes"})
        CompletableFuture<Void>[] exchange = new CompletableFuture[n];
        DeviceEvent[] toDevice = new DeviceEvent[n];
        long[] started = new long[3 * n];
        int nextToHost = 0;
        int nextExchange = 0;
        int nextToDevice = 0;
        int nextRetire = 0;
        String where = "";
        IdleStrategy idle = Idle.strategy();
        long lastProgress = System.nanoTime();
        try {
            while (nextRetire < n) {
                boolean moved = false;
                // 1. Fill free slots with the next chunks' data.
                while (nextToHost < n && nextToHost - nextRetire < slotCount) {
                    int k = nextToHost;
                    where = phase("device-to-host copy", k, n);
                    started[3 * k] = System.nanoTime();
                    toHost[k] = op.toHost(k, slots[k % slotCount], toHostStream) ? toHostStream.record() : null;
                    nextToHost++;
                    moved = true;
                }
                // 2. Run the host collective of the next chunk if its data has arrived. One per pass:
                //    the collective runs on this thread, and the passes between queue the copies that
                //    overlap the next one.
                if (nextExchange < nextToHost && done(toHost[nextExchange])) {
                    int k = nextExchange;
                    where = phase("host collective", k, n);
                    long now = System.nanoTime();
                    if (toHost[k] != null) {
                        listener.phase(label, StagingListener.Phase.TO_HOST, k, n, started[3 * k], now);
                    }
                    started[3 * k + 1] = now;
                    exchange[k] = op.exchange(k, slots[k % slotCount], host);
                    nextExchange++;
                    moved = true;
                }
                // 3. Copy back every chunk whose collective finished, in order.
                while (nextToDevice < nextExchange && exchange[nextToDevice].isDone()) {
                    int k = nextToDevice;
                    where = phase("host collective", k, n);
                    Futures.join(exchange[k]);
                    long now = System.nanoTime();
                    listener.phase(label, StagingListener.Phase.EXCHANGE, k, n, started[3 * k + 1], now);
                    where = phase("host-to-device copy", k, n);
                    started[3 * k + 2] = now;
                    toDevice[k] = op.toDevice(k, slots[k % slotCount], toDeviceStream) ? toDeviceStream.record() : null;
                    nextToDevice++;
                    moved = true;
                }
                // 4. Free the slots of chunks that are back on the device.
                while (nextRetire < nextToDevice && done(toDevice[nextRetire])) {
                    int k = nextRetire;
                    if (toDevice[k] != null) {
                        listener.phase(
                                label, StagingListener.Phase.TO_DEVICE, k, n, started[3 * k + 2], System.nanoTime());
                        toDevice[k].close();
                    }
                    if (toHost[k] != null) toHost[k].close();
                    nextRetire++;
                    moved = true;
                }
                long now = System.nanoTime();
                if (moved) {
                    idle.reset();
                    lastProgress = now;
                    continue;
                }
                boolean waitingOnHost = nextToDevice < nextExchange && nextRetire == nextToDevice;
                if (now - lastProgress > timeoutNanos + (waitingOnHost ? HOST_GRACE_NANOS : 0)) {
                    throw new JcclTimeoutException(
                            stuck(nextToHost, nextExchange, nextToDevice, nextRetire, n) + " did not finish within "
                                    + Duration.ofNanos(timeoutNanos).toMillis() / 1000.0 + " s (JCCL_TIMEOUT)");
                }
                idle.idleOrPark(Idle.MAX_PARK_NANOS);
            }
        } catch (RuntimeException e) {
            // A host collective refused because an earlier chunk's failed: report the earlier one, the cause. It is
            // failing as this one is refused, so wait for it briefly, before the communicator fails for good.
            RuntimeException cause = e;
            if (where.startsWith("host collective")) {
                long until = System.nanoTime() + Math.min(timeoutNanos, TimeUnit.SECONDS.toNanos(2));
                for (int k = nextToDevice; k < nextExchange; k++) {
                    if (!awaitUntil(exchange[k], until)) break; // its outcome is looked at below
                    if (!exchange[k].isCompletedExceptionally()) continue;
                    if (exchange[k].exceptionNow() instanceof RuntimeException first && first != e) {
                        cause = first;
                        where = phase("host collective", k, n);
                    }
                    break;
                }
            }
            settle(exchange, nextExchange);
            throw contextual(
                    cause,
                    "rank " + host.rank() + ": " + label
                            + " on device buffers (staged through host memory) failed at the " + where);
        }
    }

    /**
     * Waits for {@code f} to end, however it ends, until {@code deadline} ({@link System#nanoTime}) at the latest;
     * false if interrupted meanwhile (the interrupt is kept).
     */
    private static boolean awaitUntil(CompletableFuture<Void> f, long deadline) {
        try {
            f.get(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
        } catch (ExecutionException | TimeoutException | java.util.concurrent.CancellationException e) {
            // the caller looks at how it ended, if it needs to
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
        return true;
    }

    private static String phase(String what, int chunk, int chunks) {
        return what + " of chunk " + (chunk + 1) + " of " + chunks;
    }

    private static String stuck(int nextToHost, int nextExchange, int nextToDevice, int nextRetire, int n) {
        if (nextRetire < nextToDevice) return "the " + phase("host-to-device copy", nextRetire, n);
        if (nextToDevice < nextExchange) return "the " + phase("host collective", nextToDevice, n);
        return "the " + phase("device-to-host copy", nextExchange, n);
    }

    private static boolean done(DeviceEvent e) {
        return e == null || e.isComplete();
    }

    /**
     * After a failure: wait (within the deadline) for the host collectives already started and the copies already
     * queued, so that nothing writes into the slots or the caller's buffers later.
     */
    private void settle(CompletableFuture<Void>[] exchange, int started) {
        long deadline = System.nanoTime() + Math.min(timeoutNanos, TimeUnit.SECONDS.toNanos(10));
        for (int k = 0; k < started; k++) {
            // its error, if any, is reported by the failure already being thrown
            if (!awaitUntil(exchange[k], deadline)) return;
        }
        for (DeviceStream s : new DeviceStream[] {toHostStream, toDeviceStream}) {
            IdleStrategy idle = Idle.strategy();
            try {
                while (!s.isIdle() && System.nanoTime() < deadline) idle.idleOrPark(Idle.MAX_PARK_NANOS);
            } catch (CudaException e) {
                // a failed stream runs nothing more
            }
        }
    }

    /** The same kind of exception, with where it happened in front. */
    static RuntimeException contextual(RuntimeException e, String context) {
        String message = context + ": " + e.getMessage();
        if (e instanceof CudaException c) return new CudaException(c.error(), message, e);
        if (e instanceof JcclTimeoutException) {
            JcclTimeoutException t = new JcclTimeoutException(message);
            t.initCause(e);
            return t;
        }
        if (e instanceof PeerFailedException p) return new PeerFailedException(p.peer(), message, e);
        if (e instanceof NcclException n) {
            NcclException x = new NcclException(n.result(), message);
            x.initCause(e);
            return x;
        }
        return new JcclException(message, e);
    }

    private void ensureResources() {
        if (slots != null) return;
        toHostStream = memory.createStream();
        toDeviceStream = memory.createStream();
        slots = new MemorySegment[slotCount];
        for (int i = 0; i < slotCount; i++) slots[i] = memory.allocatePinned(slotBytes);
    }

    /** Frees the slots and streams (after the last operation, which has completed or failed and settled). */
    @Override
    public void close() {
        if (slots == null) return;
        RuntimeException first = null;
        for (MemorySegment s : slots) {
            try {
                memory.freePinned(s);
            } catch (RuntimeException e) {
                if (first == null) first = e;
            }
        }
        slots = null;
        toHostStream.close();
        toDeviceStream.close();
        if (first != null) throw first;
    }
}
