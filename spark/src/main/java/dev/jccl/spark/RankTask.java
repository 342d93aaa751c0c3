package dev.jccl.spark;

import dev.jccl.Communicator;
import java.io.Serializable;

/**
 * What one rank of {@link JcclSpark#run} does with its communicator. Spark ships it to the executors, so it must be
 * serializable (a lambda whose captured values are); its result comes back to the driver, so that must be too.
 *
 * @param <T> what each rank returns to the driver
 */
@FunctionalInterface
public interface RankTask<T> extends Serializable {
    /** Runs this rank's part; the communicator is closed after it returns or throws. */
    T run(Communicator comm) throws Exception;
}
