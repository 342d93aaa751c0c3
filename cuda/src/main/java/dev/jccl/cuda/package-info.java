/**
 * Collectives on CUDA device memory through the ordinary {@link dev.jccl.Communicator}:
 * {@link dev.jccl.cuda.CudaSupport} attaches a device executor to a communicator, which then takes
 * {@link dev.jccl.cuda.DeviceBuffer#segment() device buffers} with the same checks and in one order with its host
 * operations.
 *
 * <pre>
 *  CudaSupport ── PathSelection (all ranks agree: NCCL or staged, and why)
 *     │
 *     ├─ StagedExecutor ── StagedCollectives (pipeline) ── StagedOp (chunk layout)
 *     │                       └── the host path (runtime.HostPath)
 *     └─ NcclExecutor (in-flight queue, poller, deadlines) ── NcclCommunicator
 *                             └── NcclApi ← NcclLibrary (FFM), NcclTypes
 *  CudaExecutor: which buffers are this device's (DeviceMemory.deviceOf)
 *  DeviceMemory: streams, events, pinned memory ← CudaDeviceMemory ← CudaRuntime (FFM)
 *                                               ← StandInDeviceMemory (host memory, a thread per stream)
 *  NativeLibraries / NativeFunction: finding the libraries, binding each function on first use
 *  CudaStatus: the line `jccl info` prints
 * </pre>
 *
 * CUDA and NCCL are found at run time; nothing here needs them to build or to run host collectives.
 */
package dev.jccl.cuda;
