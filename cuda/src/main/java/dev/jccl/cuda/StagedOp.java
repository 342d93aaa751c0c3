package dev.jccl.cuda;

import dev.jccl.DataType;
import dev.jccl.ReduceOp;
import dev.jccl.runtime.HostPath;
import dev.jccl.runtime.Operation;
import java.lang.foreign.MemorySegment;
import java.util.concurrent.CompletableFuture;

/**
 * One collective on device buffers, cut into chunks that each fit one pinned staging slot. For chunk {@code k} the
 * pipeline calls {@link #toHost} (queue the device-to-host copies into the slot), then, once they are done,
 * {@link #exchange} (the host collective on the slot, run at once on the host path within the device operation's turn),
 * then {@link #toDevice} (queue the host-to-device copies out of the slot).
 *
 * <p>Every rank cuts the same call into the same chunks (the cut depends only on the count, the type, the rank count
 * and the slot size), so the host collectives pair up chunk by chunk. A chunk's device ranges never overlap another
 * chunk's, which is what makes in-place calls safe while chunk {@code k+1} is being read and chunk {@code k} written.
 *
 * <p>Slot layouts, for a chunk of {@code len} elements (block {@code r} is at {@code r × len}):
 *
 * <pre>
 *  AllReduce, Broadcast, Reduce, Send, Recv  [ chunk                        ]
 *  SendRecv                                   [ outgoing chunk | incoming    ]
 *  AllGather, ReduceScatter, AllToAll         [ block 0 | block 1 | … | n-1  ]
 * </pre>
 */
abstract sealed class StagedOp {
    final String name;
    final DataType type;
    final int ws;
    /** Elements per block of the call (count, sendCount, recvCount or countPerPeer). */
    final long count;
    /** Elements per chunk (of one block). */
    final long chunkElements;

    StagedOp(String name, DataType type, long count, long chunkElements) {
        this.name = name;
        this.type = type;
        this.ws = type.byteSize();
        this.count = count;
        this.chunkElements = chunkElements;
    }

    /**
     * Chunks of the call; a call of 0 elements has one empty chunk, so that the ranks still meet in a host collective.
     */
    final int chunks() {
        return count == 0 ? 1 : Math.toIntExact((count + chunkElements - 1) / chunkElements);
    }

    final long first(int chunk) {
        return chunk * chunkElements;
    }

    final long length(int chunk) {
        return Math.min(chunkElements, count - first(chunk));
    }

    /** {@code elements} elements from element {@code at} of {@code b}. */
    final DeviceBuffer range(DeviceBuffer b, long at, long elements) {
        return b.slice(at * ws, elements * ws);
    }

    final MemorySegment bytes(MemorySegment slot, long atElement, long elements) {
        return slot.asSlice(atElement * ws, elements * ws);
    }

    /** Queues the copy of this chunk of {@code from} to element {@code at} of the slot; false for an empty call. */
    final boolean chunkToHost(DeviceBuffer from, int chunk, MemorySegment slot, long at, DeviceStream stream) {
        if (count == 0) return false;
        stream.copyToHost(range(from, first(chunk), length(chunk)), slot.asSlice(at * ws));
        return true;
    }

    /** Queues the copy from element {@code at} of the slot to this chunk of {@code to}; false for an empty call. */
    final boolean chunkToDevice(MemorySegment slot, long at, DeviceBuffer to, int chunk, DeviceStream stream) {
        if (count == 0) return false;
        stream.copyToDevice(slot.asSlice(at * ws), range(to, first(chunk), length(chunk)));
        return true;
    }

    /** Queues this chunk's device-to-host copies; returns whether there were any. */
    abstract boolean toHost(int chunk, MemorySegment slot, DeviceStream stream);

    /** Starts this chunk's host collective. */
    abstract CompletableFuture<Void> exchange(int chunk, MemorySegment slot, HostPath host);

    /** Queues this chunk's host-to-device copies; returns whether there were any. */
    abstract boolean toDevice(int chunk, MemorySegment slot, DeviceStream stream);

    /**
     * The staged form of {@code op} (on device buffers of {@code device}) for a rank of {@code size}, with slots of
     * {@code slotBytes}.
     */
    static StagedOp of(Operation op, int device, int rank, int size, long slotBytes) {
        DeviceBuffer send = new DeviceBuffer(op.send().address(), op.send().byteSize(), device);
        DeviceBuffer recv = new DeviceBuffer(op.recv().address(), op.recv().byteSize(), device);
        long n = op.count();
        DataType t = op.type();
        return switch (op.collective()) {
            case ALL_REDUCE -> new AllReduce(send, recv, n, t, op.op(), slotBytes);
            case BROADCAST -> new Broadcast(send, recv, n, t, op.root(), rank, slotBytes);
            case REDUCE -> new Reduce(send, recv, n, t, op.op(), op.root(), rank, slotBytes);
            case ALL_GATHER -> new AllGather(send, recv, n, t, rank, size, slotBytes);
            case REDUCE_SCATTER -> new ReduceScatter(send, recv, n, t, op.op(), rank, size, slotBytes);
            case ALL_TO_ALL -> new AllToAll(send, recv, n, t, rank, size, slotBytes);
            case SEND -> new Send(send, n, t, op.root(), slotBytes);
            case RECV -> new Recv(recv, n, t, op.root(), slotBytes);
            case SEND_RECV -> new SendRecv(send, op.root(), recv, op.recvPeer(), n, t, slotBytes);
        };
    }

    /** Elements per chunk for a slot of {@code slotBytes} holding {@code blocks} blocks of the type. */
    static long chunkElements(long slotBytes, int blocks, DataType type) {
        return Math.max(1, slotBytes / ((long) blocks * type.byteSize()));
    }

    // ---------------------------------------------------------------- one block per slot

    static final class AllReduce extends StagedOp {
        private final DeviceBuffer send;
        private final DeviceBuffer recv;
        private final ReduceOp op;

        AllReduce(DeviceBuffer send, DeviceBuffer recv, long count, DataType type, ReduceOp op, long slotBytes) {
            super("AllReduce", type, count, chunkElements(slotBytes, 1, type));
            this.send = send;
            this.recv = recv;
            this.op = op;
        }

        @Override
        boolean toHost(int chunk, MemorySegment slot, DeviceStream stream) {
            return chunkToHost(send, chunk, slot, 0, stream);
        }

        @Override
        CompletableFuture<Void> exchange(int chunk, MemorySegment slot, HostPath host) {
            MemorySegment s = bytes(slot, 0, length(chunk));
            return host.run(host.checks().allReduce(s, s, length(chunk), type, op));
        }

        @Override
        boolean toDevice(int chunk, MemorySegment slot, DeviceStream stream) {
            return chunkToDevice(slot, 0, recv, chunk, stream);
        }
    }

    static final class Broadcast extends StagedOp {
        private final DeviceBuffer send;
        private final DeviceBuffer recv;
        private final int root;
        private final boolean isRoot;
        private final boolean inPlace;

        Broadcast(DeviceBuffer send, DeviceBuffer recv, long count, DataType type, int root, int rank, long slotBytes) {
            super("Broadcast", type, count, chunkElements(slotBytes, 1, type));
            this.send = send;
            this.recv = recv;
            this.root = root;
            this.isRoot = rank == root;
            this.inPlace = send != null && send.address() == recv.address();
        }

        @Override
        boolean toHost(int chunk, MemorySegment slot, DeviceStream stream) {
            return isRoot && chunkToHost(send, chunk, slot, 0, stream);
        }

        @Override
        CompletableFuture<Void> exchange(int chunk, MemorySegment slot, HostPath host) {
            long n = length(chunk);
            MemorySegment s = bytes(slot, 0, n);
            return host.run(host.checks().broadcast(s, s, n, type, root));
        }

        @Override
        boolean toDevice(int chunk, MemorySegment slot, DeviceStream stream) {
            // In place at the root the data is already where it belongs.
            return !(isRoot && inPlace) && chunkToDevice(slot, 0, recv, chunk, stream);
        }
    }

    static final class Reduce extends StagedOp {
        private final DeviceBuffer send;
        private final DeviceBuffer recv;
        private final ReduceOp op;
        private final int root;
        private final boolean isRoot;

        Reduce(
                DeviceBuffer send,
                DeviceBuffer recv,
                long count,
                DataType type,
                ReduceOp op,
                int root,
                int rank,
                long slotBytes) {
            super("Reduce", type, count, chunkElements(slotBytes, 1, type));
            this.send = send;
            this.recv = recv;
            this.op = op;
            this.root = root;
            this.isRoot = rank == root;
        }

        @Override
        boolean toHost(int chunk, MemorySegment slot, DeviceStream stream) {
            return chunkToHost(send, chunk, slot, 0, stream);
        }

        @Override
        CompletableFuture<Void> exchange(int chunk, MemorySegment slot, HostPath host) {
            long n = length(chunk);
            MemorySegment s = bytes(slot, 0, n);
            return host.run(host.checks().reduce(s, s, n, type, op, root));
        }

        @Override
        boolean toDevice(int chunk, MemorySegment slot, DeviceStream stream) {
            return isRoot && chunkToDevice(slot, 0, recv, chunk, stream);
        }
    }

    static final class Send extends StagedOp {
        private final DeviceBuffer buf;
        private final int peer;

        Send(DeviceBuffer buf, long count, DataType type, int peer, long slotBytes) {
            super("Send", type, count, chunkElements(slotBytes, 1, type));
            this.buf = buf;
            this.peer = peer;
        }

        @Override
        boolean toHost(int chunk, MemorySegment slot, DeviceStream stream) {
            return chunkToHost(buf, chunk, slot, 0, stream);
        }

        @Override
        CompletableFuture<Void> exchange(int chunk, MemorySegment slot, HostPath host) {
            long n = length(chunk);
            return host.run(host.checks().send(bytes(slot, 0, n), n, type, peer));
        }

        @Override
        boolean toDevice(int chunk, MemorySegment slot, DeviceStream stream) {
            return false;
        }
    }

    static final class Recv extends StagedOp {
        private final DeviceBuffer buf;
        private final int peer;

        Recv(DeviceBuffer buf, long count, DataType type, int peer, long slotBytes) {
            super("Recv", type, count, chunkElements(slotBytes, 1, type));
            this.buf = buf;
            this.peer = peer;
        }

        @Override
        boolean toHost(int chunk, MemorySegment slot, DeviceStream stream) {
            return false;
        }

        @Override
        CompletableFuture<Void> exchange(int chunk, MemorySegment slot, HostPath host) {
            long n = length(chunk);
            return host.run(host.checks().recv(bytes(slot, 0, n), n, type, peer));
        }

        @Override
        boolean toDevice(int chunk, MemorySegment slot, DeviceStream stream) {
            return chunkToDevice(slot, 0, buf, chunk, stream);
        }
    }

    static final class SendRecv extends StagedOp {
        private final DeviceBuffer send;
        private final int sendPeer;
        private final DeviceBuffer recv;
        private final int recvPeer;

        SendRecv(
                DeviceBuffer send,
                int sendPeer,
                DeviceBuffer recv,
                int recvPeer,
                long count,
                DataType type,
                long slotBytes) {
            super("SendRecv", type, count, chunkElements(slotBytes, 2, type));
            this.send = send;
            this.sendPeer = sendPeer;
            this.recv = recv;
            this.recvPeer = recvPeer;
        }

        @Override
        boolean toHost(int chunk, MemorySegment slot, DeviceStream stream) {
            return chunkToHost(send, chunk, slot, 0, stream);
        }

        @Override
        CompletableFuture<Void> exchange(int chunk, MemorySegment slot, HostPath host) {
            long n = length(chunk);
            return host.run(host.checks()
                    .sendRecv(bytes(slot, 0, n), sendPeer, bytes(slot, chunkElements, n), recvPeer, n, type));
        }

        @Override
        boolean toDevice(int chunk, MemorySegment slot, DeviceStream stream) {
            return chunkToDevice(slot, chunkElements, recv, chunk, stream); // the incoming half
        }
    }

    // ---------------------------------------------------------------- one block per rank

    /**
     * The collectives whose slot holds one block per rank: for a chunk of {@code len} elements, block {@code r} of the
     * slot (at {@code r × len}) is that chunk of block {@code r} of the call (at {@code r × count}).
     */
    abstract static sealed class PerRankBlocks extends StagedOp {
        final DeviceBuffer send;
        final DeviceBuffer recv;
        final int rank;
        final int ranks;

        PerRankBlocks(
                String name,
                DeviceBuffer send,
                DeviceBuffer recv,
                long count,
                DataType type,
                int rank,
                int ranks,
                long slotBytes) {
            super(name, type, count, chunkElements(slotBytes, ranks, type));
            this.send = send;
            this.recv = recv;
            this.rank = rank;
            this.ranks = ranks;
        }

        /** Queues the copies of this chunk of every block of {@code send} into the slot; false for an empty call. */
        final boolean everyBlockToHost(int chunk, MemorySegment slot, DeviceStream stream) {
            if (count == 0) return false;
            long len = length(chunk);
            for (int r = 0; r < ranks; r++) {
                stream.copyToHost(range(send, r * count + first(chunk), len), bytes(slot, r * len, len));
            }
            return true;
        }

        /** Queues the copies of every block of the slot into this chunk of {@code recv}; false for an empty call. */
        final boolean everyBlockToDevice(int chunk, MemorySegment slot, DeviceStream stream) {
            if (count == 0) return false;
            long len = length(chunk);
            for (int r = 0; r < ranks; r++) {
                stream.copyToDevice(bytes(slot, r * len, len), range(recv, r * count + first(chunk), len));
            }
            return true;
        }
    }

    static final class AllGather extends PerRankBlocks {
        AllGather(
                DeviceBuffer send,
                DeviceBuffer recv,
                long sendCount,
                DataType type,
                int rank,
                int ranks,
                long slotBytes) {
            super("AllGather", send, recv, sendCount, type, rank, ranks, slotBytes);
        }

        @Override
        boolean toHost(int chunk, MemorySegment slot, DeviceStream stream) {
            return chunkToHost(send, chunk, slot, rank * length(chunk), stream);
        }

        @Override
        CompletableFuture<Void> exchange(int chunk, MemorySegment slot, HostPath host) {
            long len = length(chunk);
            return host.run(
                    host.checks().allGather(bytes(slot, rank * len, len), bytes(slot, 0, ranks * len), len, type));
        }

        @Override
        boolean toDevice(int chunk, MemorySegment slot, DeviceStream stream) {
            return everyBlockToDevice(chunk, slot, stream);
        }
    }

    static final class ReduceScatter extends PerRankBlocks {
        private final ReduceOp op;

        ReduceScatter(
                DeviceBuffer send,
                DeviceBuffer recv,
                long recvCount,
                DataType type,
                ReduceOp op,
                int rank,
                int ranks,
                long slotBytes) {
            super("ReduceScatter", send, recv, recvCount, type, rank, ranks, slotBytes);
            this.op = op;
        }

        @Override
        boolean toHost(int chunk, MemorySegment slot, DeviceStream stream) {
            return everyBlockToHost(chunk, slot, stream);
        }

        @Override
        CompletableFuture<Void> exchange(int chunk, MemorySegment slot, HostPath host) {
            long len = length(chunk);
            return host.run(host.checks()
                    .reduceScatter(bytes(slot, 0, ranks * len), bytes(slot, rank * len, len), len, type, op));
        }

        @Override
        boolean toDevice(int chunk, MemorySegment slot, DeviceStream stream) {
            return chunkToDevice(slot, rank * length(chunk), recv, chunk, stream);
        }
    }

    static final class AllToAll extends PerRankBlocks {
        AllToAll(
                DeviceBuffer send,
                DeviceBuffer recv,
                long countPerPeer,
                DataType type,
                int rank,
                int ranks,
                long slotBytes) {
            super("AllToAll", send, recv, countPerPeer, type, rank, ranks, slotBytes);
        }

        @Override
        boolean toHost(int chunk, MemorySegment slot, DeviceStream stream) {
            return everyBlockToHost(chunk, slot, stream);
        }

        @Override
        CompletableFuture<Void> exchange(int chunk, MemorySegment slot, HostPath host) {
            long len = length(chunk);
            MemorySegment s = bytes(slot, 0, ranks * len);
            return host.run(host.checks().allToAll(s, s, len, type));
        }

        @Override
        boolean toDevice(int chunk, MemorySegment slot, DeviceStream stream) {
            return everyBlockToDevice(chunk, slot, stream);
        }
    }
}
