package dev.jccl.transport;

/** A network plugin that cannot run here; the message says what is missing and what to do. */
public class NetPluginException extends Exception {
    public NetPluginException(String message) {
        super(message);
    }

    public NetPluginException(String message, Throwable cause) {
        super(message, cause);
    }
}
