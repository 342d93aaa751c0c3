#!/usr/bin/env bash
# bench/compare.sh: Jccl against Open MPI on this host, in one sitting (issue 4).
#
#   bench/compare.sh            R=5 repetitions of every row, each program's runs interleaved
#   bench/compare.sh --quick    one repetition of every row: checks that everything works
#   bench/compare.sh -r 9       nine repetitions
#
# Installs Open MPI from Debian when mpicc or mpirun is missing, builds bench/mpi_bench.c (our
# own nccl-tests-like MPI program) and the jccl tool, then runs `./jccl perf` and mpi_bench
# alternately (Jccl first in odd repetitions, MPI first in even ones, so that neither always
# runs on a machine warmed or heated by the other) for every row below, and prints per row:
# Jccl's median (min-max), MPI's median (min-max) and the ratio of the medians Jccl/MPI.
# 8-byte rows compare time in µs (lower is better, a ratio below 1 means Jccl is faster); the
# others compare busbw in GB/s (higher is better, a ratio above 1 means Jccl is faster).
# Raw outputs stay in bench/target/compare/. A benchmark, not a test: CI does not run it.
set -euo pipefail
cd "$(dirname "$0")/.."

reps=5
while [[ $# -gt 0 ]]; do
  case "$1" in
    --quick) reps=1 ;;
    -r|--reps) reps="${2:?-r needs a number}"; shift ;;
    -h|--help) sed -n '2,15p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "bench/compare.sh: unknown argument '$1' (try --help)" >&2; exit 2 ;;
  esac
  shift
done
[[ "$reps" =~ ^[1-9][0-9]*$ ]] || { echo "bench/compare.sh: -r needs a positive number, got '$reps'" >&2; exit 2; }

say() { echo "compare.sh: $*" >&2; }

if ! command -v mpicc >/dev/null || ! command -v mpirun >/dev/null; then
  say "mpicc/mpirun not found: installing Open MPI from Debian (openmpi-bin libopenmpi-dev)"
  sudo=""
  if [[ "$(id -u)" != 0 ]]; then
    command -v sudo >/dev/null || { say "not root and no sudo: install openmpi-bin and libopenmpi-dev, then rerun"; exit 1; }
    sudo=sudo
  fi
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq openmpi-bin libopenmpi-dev >&2
fi

out=bench/target/compare
mkdir -p "$out"
say "building bench/target/mpi_bench with $(mpicc --showme:version 2>/dev/null || echo mpicc)"
mpicc -O2 -Wall -o bench/target/mpi_bench bench/mpi_bench.c
say "building the jccl tool (if needed)"
./jccl info >/dev/null

# Open MPI as root, more ranks than cores; Debian's build has UCX off, so shared memory is the
# vader BTL unless a row says otherwise.
mpirun=(mpirun --allow-run-as-root --oversubscribe --bind-to none)

# name | collective | ranks | bytes | iterations | warm-up | metric (time|busbw) | transport (shm|tcp)
# Iterations give each timed loop a tenth of a second or more on both sides: shorter loops measure
# the machine's hiccups (a few milliseconds of another VM, a JIT compile) more than the libraries.
rows=(
  "AllReduce 2 ranks 8 B|all_reduce|2|8|100000|1000|time|shm"
  "AllReduce 2 ranks 1 MiB|all_reduce|2|1048576|1000|50|busbw|shm"
  "AllReduce 2 ranks 64 MiB|all_reduce|2|67108864|20|3|busbw|shm"
  "AllReduce 2 ranks TCP 8 B|all_reduce|2|8|20000|1000|time|tcp"
  "AllReduce 2 ranks TCP 1 MiB|all_reduce|2|1048576|300|20|busbw|tcp"
  "AllReduce 2 ranks TCP 64 MiB|all_reduce|2|67108864|10|3|busbw|tcp"
  "AllGather 4 ranks 1 MiB|all_gather|4|1048576|300|20|busbw|shm"
  "AllGather 4 ranks 64 MiB|all_gather|4|67108864|10|3|busbw|shm"
  "Broadcast 4 ranks 1 MiB|broadcast|4|1048576|300|20|busbw|shm"
  "Broadcast 4 ranks 64 MiB|broadcast|4|67108864|10|3|busbw|shm"
)

# The first data line's out-of-place time (µs) or busbw (GB/s) in a jccl perf / mpi_bench table.
jccl_value() { awk -v m="$2" '!/^#/ && NF >= 8 { print (m == "time" ? $6 : $8); exit }' "$1"; }
mpi_value() { awk -v m="$2" '!/^#/ && NF >= 5 { print (m == "time" ? $3 : $5); exit }' "$1"; }

run_jccl() { # row index, repetition
  local name coll np bytes iters warm metric transport file
  IFS='|' read -r name coll np bytes iters warm metric transport <<< "${rows[$1]}"
  file="$out/jccl-$1-$2.txt"
  local env=()
  [[ "$transport" == tcp ]] && env=(JCCL_SHM_DISABLE=1)
  # -z 2: blocking calls back to back, as mpi_bench times MPI's (nccl-tests' -z 0 would add a
  # thread handoff per batch, -z 1 a barrier per call, neither of which the MPI side pays).
  # --warmup-time 5: the JVM compiles its hot paths in the first seconds, competing for the two
  # cores with the ranks themselves; C needs no such warm-up, and none of it is timed.
  if ! env "${env[@]}" ./jccl perf "$coll" -np "$np" -b "$bytes" -e "$bytes" -n "$iters" -w "$warm" -c 0 -z 2 --warmup-time 5 >"$file" 2>"$file.err"; then
    say "jccl perf failed for '$name' (see $file.err)"; tail -5 "$file.err" >&2; return 1
  fi
  local value; value="$(jccl_value "$file" "$metric")"
  [[ -n "$value" ]] || { say "no result line in $file for '$name'"; return 1; }
  echo "$value" >> "$out/jccl-$1.values"
}

run_mpi() { # row index, repetition
  local name coll np bytes iters warm metric transport file
  IFS='|' read -r name coll np bytes iters warm metric transport <<< "${rows[$1]}"
  file="$out/mpi-$1-$2.txt"
  local btl=()
  [[ "$transport" == tcp ]] && btl=(--mca btl tcp,self --mca btl_tcp_if_include lo)
  if ! "${mpirun[@]}" -np "$np" "${btl[@]}" bench/target/mpi_bench "$coll" "$bytes" "$iters" "$warm" >"$file" 2>"$file.err"; then
    say "mpirun failed for '$name' (see $file.err)"; tail -5 "$file.err" >&2; return 1
  fi
  local value; value="$(mpi_value "$file" "$metric")"
  [[ -n "$value" ]] || { say "no result line in $file for '$name'"; return 1; }
  echo "$value" >> "$out/mpi-$1.values"
}

rm -f "$out"/*.values
for ((rep = 1; rep <= reps; rep++)); do
  for i in "${!rows[@]}"; do
    say "repetition $rep/$reps: ${rows[$i]%%|*}"
    if ((rep % 2 == 1)); then run_jccl "$i" "$rep"; run_mpi "$i" "$rep"; else run_mpi "$i" "$rep"; run_jccl "$i" "$rep"; fi
  done
done

# "median (min-max)" of the numbers in a file, one a line.
summary() { sort -g "$1" | awk '{ v[NR] = $1 } END { m = (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2;
  printf "%s %.4g (%.4g-%.4g)\n", m, m, v[1], v[NR] }'; }

echo
echo "# Jccl vs Open MPI $(mpirun --version 2>/dev/null | head -1 | awk '{print $NF}'), $reps run(s) each, interleaved; $(nproc) CPUs, $(date -u +%Y-%m-%dT%H:%MZ)"
echo "# time: µs per call, lower is better (ratio < 1: Jccl faster); busbw: GB/s, higher is better (ratio > 1: Jccl faster)"
printf '%-30s %-11s %-24s %-24s %9s\n' "row" "metric" "Jccl median (min-max)" "MPI median (min-max)" "Jccl/MPI"
for i in "${!rows[@]}"; do
  IFS='|' read -r name coll np bytes iters warm metric transport <<< "${rows[$i]}"
  read -r jm jtext <<< "$(summary "$out/jccl-$i.values")"
  read -r mm mtext <<< "$(summary "$out/mpi-$i.values")"
  ratio="$(awk -v a="$jm" -v b="$mm" 'BEGIN { if (b > 0) printf "%.2f", a / b; else print "n/a" }')"
  unit=$([[ "$metric" == time ]] && echo "time us" || echo "busbw GB/s")
  printf '%-30s %-11s %-24s %-24s %9s\n' "$name" "$unit" "$jtext" "$mtext" "$ratio"
done
