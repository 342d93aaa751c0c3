/** Collectives on CUDA device memory (see the module's description). */
package dev.jccl.cuda;
