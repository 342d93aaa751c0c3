/**
 * Jccl in Apache Spark's barrier execution mode: {@link dev.jccl.spark.JcclSpark#communicator} inside a barrier stage,
 * {@link dev.jccl.spark.JcclSpark#run} from the driver.
 */
package dev.jccl.spark;
