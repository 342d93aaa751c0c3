package dev.jccl.spark;

import dev.jccl.Config;
import java.net.InetAddress;
import java.net.NetworkInterface;
import java.net.SocketException;
import java.net.UnknownHostException;

/**
 * Points Jccl's sockets at the network Spark already uses. Spark knows the address each executor is reached at (its
 * {@code BarrierTaskInfo}); the interface that holds that address is the one the executors can reach each other on, so
 * a job needs no {@code JCCL_SOCKET_IFNAME} of its own and no other network to open. A filter the user set wins.
 */
final class ExecutorNetwork {
    private ExecutorNetwork() {}

    /**
     * {@code config} with its interface filter set to the exact interface that holds {@code executorAddress}
     * ({@code host:port} or {@code host}), unless the user chose one or no local interface holds it.
     */
    static Config onExecutorInterface(Config config, String executorAddress) {
        if (!config.sourceOf("socketIfname").equals("default")) return config;
        String name = interfaceHolding(host(executorAddress));
        return name == null
                ? config
                : config.toBuilder().socketIfname("=" + name).build();
    }

    /** The host part of {@code host:port}, {@code [v6]:port} or a bare host. */
    static String host(String address) {
        if (address == null || address.isBlank()) return null;
        String a = address.trim();
        if (a.startsWith("[")) {
            int close = a.indexOf(']');
            return close > 0 ? a.substring(1, close) : a;
        }
        int colon = a.lastIndexOf(':');
        // One colon: host:port. More: a bare IPv6 address.
        return colon > 0 && a.indexOf(':') == colon ? a.substring(0, colon) : a;
    }

    /** The name of the local interface with {@code host}'s address, or null (unknown host, or not this machine's). */
    static String interfaceHolding(String host) {
        if (host == null) return null;
        try {
            NetworkInterface nif = NetworkInterface.getByInetAddress(InetAddress.getByName(host));
            return nif == null ? null : nif.getName();
        } catch (UnknownHostException | SocketException e) {
            return null;
        }
    }
}
