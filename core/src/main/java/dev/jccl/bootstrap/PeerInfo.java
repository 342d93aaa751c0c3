package dev.jccl.bootstrap;

import dev.jccl.Config;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;

/**
 * What every rank tells the others at start-up: who it is, where it runs, where to reach it.
 *
 * @param hostId host identity (see {@code HostIdentity}); equal ids share memory
 * @param dataHost address of this rank's data listener
 * @param dataPort port of this rank's data listener
 * @param shmPrefix how this rank names its shared-memory segments, or empty when it will not use shared memory
 *     (JCCL_SHM_DISABLE, or no /dev/shm); two ranks of one host talk through shared memory only if both have one
 * @param settings the settings every rank must share (algorithm and protocol filters, buffer size, network transport),
 *     as text: ranks that differ would plan different schedules
 * @param netAddress where a network plugin's peers reach this rank (for UCX, its worker address), Base64; empty without
 *     one
 * @param cpus the CPUs this rank's process may use (its affinity mask and CPU quota)
 * @param oversubscription this rank's {@code JCCL_OVERSUBSCRIBED}: with {@code cpus}, what every rank needs to agree on
 *     whether a host's ranks share CPUs (see {@code topology.CpuSharing})
 * @param controlPort port of this rank's control listener on {@code dataHost}, which answers the other ranks after a
 *     failure (see {@code runtime.FailureAgreement}); 0 without one
 * @param calibration the tuner's figures as this rank read them ({@code plan.Calibration#encode}), empty for the
 *     built-in ones: every rank plans with rank 0's, so that all choose alike
 */
public record PeerInfo(
        int rank,
        String hostId,
        String hostName,
        long pid,
        String dataHost,
        int dataPort,
        String shmPrefix,
        String settings,
        String netAddress,
        int cpus,
        Config.Oversubscription oversubscription,
        int controlPort,
        String calibration) {
    /** The most CPUs a rank may say it has; more is taken for a corrupt record. */
    static final int MAX_CPUS = 1 << 20;

    public PeerInfo {
        if (shmPrefix == null) shmPrefix = "";
        if (settings == null) settings = "";
        if (netAddress == null) netAddress = "";
        if (calibration == null) calibration = "";
        if (oversubscription == null) oversubscription = Config.Oversubscription.AUTO;
        if (cpus < 1) cpus = 1;
    }

    /**
     * With a network plugin's address, and as many CPUs as this process may use, deciding oversubscription by itself.
     */
    public PeerInfo(
            int rank,
            String hostId,
            String hostName,
            long pid,
            String dataHost,
            int dataPort,
            String shmPrefix,
            String settings,
            String netAddress) {
        this(
                rank,
                hostId,
                hostName,
                pid,
                dataHost,
                dataPort,
                shmPrefix,
                settings,
                netAddress,
                Runtime.getRuntime().availableProcessors(),
                Config.Oversubscription.AUTO,
                0,
                "");
    }

    /** Without a network plugin's address. */
    public PeerInfo(
            int rank,
            String hostId,
            String hostName,
            long pid,
            String dataHost,
            int dataPort,
            String shmPrefix,
            String settings) {
        this(rank, hostId, hostName, pid, dataHost, dataPort, shmPrefix, settings, "");
    }

    /** The network plugin's address as bytes (empty without one). */
    public byte[] netAddressBytes() {
        return java.util.Base64.getDecoder().decode(netAddress);
    }

    /**
     * The same rank with another rank number, data port, network address and control port (a split communicator's view
     * of it).
     */
    public PeerInfo renumbered(int newRank, int newDataPort, String newNetAddress, int newControlPort) {
        return new PeerInfo(
                newRank,
                hostId,
                hostName,
                pid,
                dataHost,
                newDataPort,
                shmPrefix,
                settings,
                newNetAddress,
                cpus,
                oversubscription,
                newControlPort,
                calibration);
    }

    /** True if this rank and {@code other} share a host and both use shared memory. */
    public boolean sharesMemoryWith(PeerInfo other) {
        return hostId.equals(other.hostId) && !shmPrefix.isEmpty() && !other.shmPrefix.isEmpty();
    }

    public byte[] encode() {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream(128);
        try (DataOutputStream out = new DataOutputStream(bytes)) {
            out.writeInt(rank);
            out.writeUTF(hostId);
            out.writeUTF(hostName);
            out.writeLong(pid);
            out.writeUTF(dataHost);
            out.writeInt(dataPort);
            out.writeUTF(shmPrefix);
            out.writeUTF(settings);
            out.writeUTF(netAddress);
            out.writeInt(cpus);
            out.writeByte(oversubscription.ordinal());
            out.writeShort(controlPort);
            out.writeUTF(calibration);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return bytes.toByteArray();
    }

    /** Decodes one record; a malformed one is an {@link IOException}, never a large allocation. */
    public static PeerInfo decode(DataInputStream in) throws IOException {
        int rank = in.readInt();
        String hostId = in.readUTF();
        String hostName = in.readUTF();
        long pid = in.readLong();
        String dataHost = in.readUTF();
        int dataPort = in.readInt();
        if (dataPort < 0 || dataPort > 65535) throw new IOException("bad data port " + dataPort);
        String shmPrefix = in.readUTF();
        String settings = in.readUTF();
        String netAddress = in.readUTF();
        try {
            java.util.Base64.getDecoder().decode(netAddress);
        } catch (IllegalArgumentException e) {
            throw new IOException("network address is not Base64");
        }
        int cpus = in.readInt();
        if (cpus < 1 || cpus > MAX_CPUS) throw new IOException("bad CPU count " + cpus);
        int setting = in.readUnsignedByte();
        Config.Oversubscription[] known = Config.Oversubscription.values();
        if (setting >= known.length) throw new IOException("bad oversubscription setting " + setting);
        int controlPort = in.readUnsignedShort();
        String calibration = in.readUTF();
        return new PeerInfo(
                rank,
                hostId,
                hostName,
                pid,
                dataHost,
                dataPort,
                shmPrefix,
                settings,
                netAddress,
                cpus,
                known[setting],
                controlPort,
                calibration);
    }

    public static PeerInfo decode(byte[] bytes) throws IOException {
        return decode(new DataInputStream(new ByteArrayInputStream(bytes)));
    }

    /** {@code host:pid}, as error messages print a peer. */
    public String where() {
        return hostName + ":pid " + pid;
    }
}
