#!/usr/bin/env bash
# bench/floor.sh: how far a two-rank 8-byte AllReduce is from this machine's floor (issue 17).
#
#   bench/floor.sh          three sittings of: the cache-line round trip, Jccl, Open MPI
#
# The floor is CacheLineFloor: two JVMs bounce a counter through a cache line each of a /dev/shm file, spinning,
# nothing else in the way; a two-rank AllReduce needs at least one such hand-off each way it is timed. Jccl runs
# `jccl perf all_reduce -np 2 -b 8 -e 8 -z 2` (blocking calls back to back), Open MPI bench/mpi_bench (as
# bench/grid.sh builds it), 200000 iterations each. What a library takes beyond the one-way hand-off is its
# per-call work. A benchmark, not a test.
set -euo pipefail
cd "$(dirname "$0")/.."
out=bench/target/floor
mkdir -p "$out"
./jccl info >/dev/null
source bench/common.sh
find_java25 bench/floor.sh
mpi=0
if command -v mpicc >/dev/null && command -v mpirun >/dev/null; then
  mpicc -O2 -Wall -o bench/target/mpi_bench bench/mpi_bench.c && mpi=1
fi
src=bench/src/main/java/dev/jccl/bench/CacheLineFloor.java
for rep in 1 2 3; do
  shm="/dev/shm/jccl-floor-$$"
  rm -f "$shm"
  "$java_bin" "$src" pong "$shm" & pong=$!
  "$java_bin" "$src" ping "$shm" | tee -a "$out/floor.txt"
  wait "$pong"; rm -f "$shm"
  JCCL_CALIBRATION=none ./jccl perf all_reduce -np 2 -b 8 -e 8 -z 2 -c 0 -n 200000 -w 20000 2>/dev/null |
    awk '!/^#/ && NF >= 8 { printf "jccl 8 B AllReduce, 2 ranks, -z 2: %s us out of place, %s us in place\n", $6, $10 }' |
    tee -a "$out/jccl.txt"
  if [[ $mpi == 1 ]]; then
    mpirun --allow-run-as-root --oversubscribe --bind-to none -np 2 bench/target/mpi_bench all_reduce 8 200000 20000 |
      awk '!/^#/ && NF >= 5 { printf "Open MPI 8 B MPI_Allreduce, 2 ranks: %s us\n", $3; exit }' | tee -a "$out/mpi.txt"
  fi
done
