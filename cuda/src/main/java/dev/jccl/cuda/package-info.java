/**
 * Collectives on CUDA device memory: {@link dev.jccl.cuda.DeviceCommunicator} over a host
 * {@link dev.jccl.Communicator}, on {@link dev.jccl.cuda.DeviceBuffer}s.
 *
 * <pre>
 *  DeviceCommunicator ── PathSelection (all ranks agree: NCCL or staged, and why)
 *     │                     │
 *     ├─ StagedCollectives (pipeline) ── StagedOp (chunk layout per collective) ── host Communicator
 *     └─ NcclCommunicator (deadlines, async errors, abort) ── NcclApi ← NcclLibrary (FFM), NcclTypes
 *  DeviceMemory: streams, events, pinned memory ← CudaDeviceMemory ← CudaRuntime (FFM)
 *                                               ← StandInDeviceMemory (host memory, a thread per stream)
 *  NativeLibraries / NativeFunction: finding the libraries, binding each function on first use
 *  CudaStatus: the line `jccl info` prints
 * </pre>
 *
 * CUDA and NCCL are found at run time; nothing here needs them to build or to run host collectives.
 */
package dev.jccl.cuda;
