#!/usr/bin/env bash
# bench/grid.sh: Jccl against Open MPI on this host, every cell of issue 17's grid, interleaved.
#
#   bench/grid.sh                 every section, 3 repetitions (about an hour on 2 cores)
#   bench/grid.sh -r 5            five repetitions
#   bench/grid.sh --quick         one repetition with short loops: checks that everything runs
#   bench/grid.sh --only ar-shm,types     some sections: ar-shm ar-tcp others types ucx
#   bench/grid.sh --np 2          only cells with this many ranks
#   bench/grid.sh --table         print the last run's table again from bench/target/grid, run nothing
#
# Sections:
#   ar-shm  AllReduce float32 sum, 2 and 4 ranks, 8 B 64 KiB 1 MiB 64 MiB, shared memory:
#           Jccl -z 0 (async calls, one wait) and -z 2 (blocking calls back to back) against
#           Open MPI's shared-memory BTL (vader)
#   ar-tcp  the same over TCP only: JCCL_SHM_DISABLE=1 against mpirun --mca btl tcp,self
#   others  AllGather, ReduceScatter, Broadcast, 2 and 4 ranks, 8 B per rank and 64 KiB, shm
#   types   AllReduce busbw of bfloat16 and float16 against float32, 2 ranks, 1 MiB and 64 MiB
#   ucx     AllReduce 64 MiB, 2 ranks, JCCL_NET=UCX against Jccl's own TCP (both JCCL_SHM_DISABLE=1)
#
# Every cell runs each program once per repetition, alternating which goes first (Jccl first in
# odd repetitions, Open MPI first in even ones) so neither always meets a machine the other has
# warmed or heated. Sizes are nccl-tests' (the larger buffer): an AllGather of "8 B per rank" at
# 4 ranks is a 32 B row. Times are the out-of-place column, µs per call (the mean over the timed
# loop, averaged over ranks); the table shows the median of the repetitions with min-max, and
# Jccl/MPI, the ratio of the medians: below 1.00 Jccl is faster. Open MPI has no async call, so
# both of Jccl's modes are compared with its blocking calls. Raw outputs stay in bench/target/grid/.
#
# bench/core_probe times a cache line's round trip between two CPUs after every run, and watches it
# every half second all along; the table prints the range that each cell's timed loops met (column
# "line ns"). On a virtual machine the hypervisor moves the vCPUs: here the round trip alternates
# between about 50-110 and 300-450 ns, sometimes for minutes, sometimes for a second or two, and
# small collectives of both libraries take 2-4x longer in the slow phase, streaming through shared
# memory 5-7x (bench/stream_probe.c shows it without a JVM). Probes before and after a run alone
# once misled: on 2026-12-08 the rows of one 40 s run switched between 6-9 and 37-63 µs a call with
# the phase, seconds apart. A "!" marks a cell whose runs met both phases (the largest round trip
# over twice the smallest): its ratio compares phases as much as libraries. The columns "paired"
# take, per repetition, Jccl's run and Open MPI's run only when both met one phase (the smallest and
# largest round trip of each within 1.5x), and print the median of those ratios with how many
# repetitions paired: "0.93 (2/3)"; the types and ucx sections pair a type's (UCX's) busbw with
# float32's (the sockets') run of the same repetition. The raw values (time, busbw, and the smallest
# and largest round trip the run's timed loops met) stay in bench/target/grid/*.values, the watch's
# samples (monotonic ms, ns) in bench/target/grid/watch.
# A benchmark, not a test: CI does not run it.
set -euo pipefail
cd "$(dirname "$0")/.."
source bench/common.sh

reps=3
quick=0
only="ar-shm,ar-tcp,others,types,ucx"
np_filter=""
table_only=0
while [[ $# -gt 0 ]]; do
  case "$1" in
    --quick) reps=1; quick=1 ;;
    -r|--reps) reps="${2:?-r needs a number}"; shift ;;
    --only) only="${2:?--only needs a list}"; shift ;;
    --np) np_filter="${2:?--np needs a number}"; shift ;;
    --table) table_only=1 ;;
    -h|--help) print_help "$0"; exit 0 ;;
    *) unknown_argument bench/grid.sh "$1" ;;
  esac
  shift
done
[[ "$reps" =~ ^[1-9][0-9]*$ ]] || { echo "bench/grid.sh: -r needs a positive number, got '$reps'" >&2; exit 2; }
for s in ${only//,/ }; do
  [[ " ar-shm ar-tcp others types ucx " == *" $s "* ]] || { echo "bench/grid.sh: unknown section '$s' (ar-shm ar-tcp others types ucx)" >&2; exit 2; }
done
wanted() { [[ ",$only," == *",$1,"* ]]; }

say() { echo "grid.sh: $*" >&2; }

out=bench/target/grid
if ((table_only)); then
  [[ -d "$out" ]] || { echo "bench/grid.sh: --table: no earlier run in $out" >&2; exit 1; }
  reps="$(for f in "$out"/*.values; do wc -l < "$f"; done 2>/dev/null | sort -n | tail -1)"
elif ! command -v mpicc >/dev/null || ! command -v mpirun >/dev/null; then
  say "mpicc/mpirun not found: installing Open MPI from Debian (openmpi-bin libopenmpi-dev)"
  sudo=""
  if [[ "$(id -u)" != 0 ]]; then
    command -v sudo >/dev/null || { say "not root and no sudo: install openmpi-bin and libopenmpi-dev, then rerun"; exit 1; }
    sudo=sudo
  fi
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq openmpi-bin libopenmpi-dev >&2
fi

if ((! table_only)); then
  rm -rf "$out"
  mkdir -p "$out"
  date -u +%Y-%m-%dT%H:%MZ > "$out/started"
  say "building bench/target/mpi_bench with $(mpicc --showme:version 2>/dev/null || echo mpicc)"
  mpicc -O2 -Wall -o bench/target/mpi_bench bench/mpi_bench.c
  mpicc -O2 -Wall -pthread -o bench/target/core_probe bench/core_probe.c
  say "building the jccl tool (if needed)"
  ./jccl info >/dev/null
  bench/target/core_probe --watch 500 > "$out/watch" &
  watch_pid=$!
  trap 'kill "$watch_pid" 2>/dev/null || true' EXIT
fi

# Open MPI as root, more ranks than cores (it then yields while it waits, as mpi_yield_when_idle
# does); Debian's build has UCX off, so shared memory is the vader BTL unless a cell says tcp.
mpirun=(mpirun --allow-run-as-root --oversubscribe --bind-to none)

# Iterations per timed loop: a tenth of a second or more on the faster side at the 2026-12-07 grid's
# speeds, so that a loop averages over the scheduler's time slices (a few ms) and measures the libraries
# more than the machine's hiccups. Loops of 6-40 ms (a 4-rank 8-byte Broadcast at 0.3-0.5 µs a call,
# 20,000 calls) once read 0.24-0.77 µs from run to run on both sides, while 5 rows of one run mostly
# agreed within 0.1 µs (the first often read higher). The sockets' small messages take 10-60 µs a call and need fewer.
# --quick divides them by 10.
iters_for() { # bytes ranks transport collective
  local b=$1 n=$2 transport=$3 coll=$4 it
  if ((b <= 64)); then
    if [[ "$transport" != shm ]]; then it=$((n == 2 ? 20000 : 2000))
    elif [[ "$coll" == broadcast ]]; then it=$((n == 2 ? 1000000 : 300000))
    else it=$((n == 2 ? 500000 : 30000)); fi
  elif ((b <= 65536 * 4)); then
    if [[ "$transport" != shm ]]; then it=$((n == 2 ? 5000 : 1000))
    else it=$((n == 2 ? 20000 : 5000)); fi
  elif ((b <= 4194304)); then it=$((n == 2 ? 1000 : 300))
  else it=$((n == 2 ? 20 : 10)); fi
  ((quick)) && it=$(((it + 9) / 10))
  echo "$it"
}
warm_for() { local it; it=$(iters_for "$@"); echo $(((it + 9) / 10)); }

# One cell: id | section | collective | ranks | bytes | transport (shm|tcp|ucx) | jccl modes | type | mpi (yes|no)
cells=()
add() { cells+=("$(IFS='|'; echo "$*")"); }
for np in 2 4; do
  [[ -n "$np_filter" && "$np" != "$np_filter" ]] && continue
  for transport in shm tcp; do
    wanted "ar-$transport" || continue
    for bytes in 8 65536 1048576 67108864; do
      add "ar-$transport-$np-$bytes" "ar-$transport" all_reduce "$np" "$bytes" "$transport" "0 2" float yes
    done
  done
  if wanted others; then
    for coll in all_gather reduce_scatter broadcast; do
      small=8
      [[ "$coll" != broadcast ]] && small=$((8 * np))
      for bytes in "$small" 65536; do
        add "others-$coll-$np-$bytes" others "$coll" "$np" "$bytes" shm "0 2" float yes
      done
    done
  fi
done
if wanted types && [[ -z "$np_filter" || "$np_filter" == 2 ]]; then
  for bytes in 1048576 67108864; do
    for type in float bfloat16 half; do add "types-$type-$bytes" types all_reduce 2 "$bytes" shm "2" "$type" no; done
  done
fi
if wanted ucx && [[ -z "$np_filter" || "$np_filter" == 2 ]]; then
  add "ucx-tcp" ucx all_reduce 2 67108864 tcp "2" float no
  add "ucx-ucx" ucx all_reduce 2 67108864 ucx "2" float no
fi

# The first data line's out-of-place time (µs) and busbw (GB/s) in a jccl perf / mpi_bench table.
jccl_value() { awk '!/^#/ && NF >= 8 { print $6, $8; exit }' "$1"; }
mpi_value() { awk '!/^#/ && NF >= 5 { print $3, $5; exit }' "$1"; }

# A cache line's round trip between two CPUs now, in ns ("-" if it cannot be measured).
line_round_trip() { bench/target/core_probe 2>/dev/null || echo -; }
# The monotonic clock in ms, the watch's time base.
now_ms() { bench/target/core_probe --now; }

run_jccl() { # cell, mode, repetition
  local id section coll np bytes transport modes type mpi file
  IFS='|' read -r id section coll np bytes transport modes type mpi <<< "$1"
  file="$out/$id-jccl-z$2-$3.txt"
  local env=()
  case "$transport" in
    tcp) env=(JCCL_SHM_DISABLE=1) ;;
    ucx) env=(JCCL_SHM_DISABLE=1 JCCL_NET=UCX) ;;
  esac
  local iters; iters="$(iters_for "$bytes" "$np" "$transport" "$coll")"
  # --warmup-time 4: the JVM compiles its hot paths in its first seconds; none of that is timed.
  if ! env "${env[@]}" ./jccl perf "$coll" -np "$np" -b "$bytes" -e "$bytes" -d "$type" -n "$iters" \
      -w "$(warm_for "$bytes" "$np" "$transport" "$coll")" -c 0 -z "$2" --warmup-time 4 >"$file" 2>"$file.err"; then
    say "jccl perf failed for $id -z $2 (see $file.err)"; tail -5 "$file.err" >&2; return 1
  fi
  local end after; end="$(now_ms)"; after="$(line_round_trip)"
  local value; value="$(jccl_value "$file")"
  [[ -n "$value" ]] || { say "no result line in $file"; return 1; }
  # Two timed loops: out of place, then in place.
  echo "$value $(phase_range "$out/watch" "$after" "$end" "$(awk -v t="${value%% *}" -v n="$iters" 'BEGIN { print 2 * n * t }')")" \
    >> "$out/$id-jccl-z$2.values"
}

run_mpi() { # cell, repetition
  local id section coll np bytes transport modes type mpi file
  IFS='|' read -r id section coll np bytes transport modes type mpi <<< "$1"
  file="$out/$id-mpi-$2.txt"
  local btl=()
  [[ "$transport" == tcp ]] && btl=(--mca btl tcp,self --mca btl_tcp_if_include lo)
  local iters; iters="$(iters_for "$bytes" "$np" "$transport" "$coll")"
  if ! "${mpirun[@]}" -np "$np" "${btl[@]}" bench/target/mpi_bench "$coll" "$bytes" "$iters" \
      "$(warm_for "$bytes" "$np" "$transport" "$coll")" >"$file" 2>"$file.err"; then
    say "mpirun failed for $id (see $file.err)"; tail -5 "$file.err" >&2; return 1
  fi
  local end after; end="$(now_ms)"; after="$(line_round_trip)"
  local value; value="$(mpi_value "$file")"
  [[ -n "$value" ]] || { say "no result line in $file"; return 1; }
  echo "$value $(phase_range "$out/watch" "$after" "$end" "$(awk -v t="${value%% *}" -v n="$iters" 'BEGIN { print n * t }')")" \
    >> "$out/$id-mpi.values"
}

for ((rep = 1; rep <= reps && ! table_only; rep++)); do
  for cell in "${cells[@]}"; do
    IFS='|' read -r id section coll np bytes transport modes type mpi <<< "$cell"
    say "repetition $rep/$reps: $id"
    order=($modes)
    if ((rep % 2 == 1)); then
      for z in "${order[@]}"; do run_jccl "$cell" "$z" "$rep"; done
      [[ "$mpi" == yes ]] && run_mpi "$cell" "$rep"
    else
      [[ "$mpi" == yes ]] && run_mpi "$cell" "$rep"
      for ((i = ${#order[@]} - 1; i >= 0; i--)); do run_jccl "$cell" "${order[$i]}" "$rep"; done
    fi
  done
done

# "median min max" of the numbers on stdin, one per line.
median_min_max() { sort -g | awk '{ v[NR] = $1 } END {
  m = (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2; printf "%s %s %s\n", m, v[1], v[NR] }'; }
# "median min max" of column $2 (1: time, 2: busbw) of a values file.
stats() { awk -v c="$2" '{ print $c }' "$1" | median_min_max; }
cell_text() { # file column -> "median (min-max)"
  [[ -s "$1" ]] || { echo "-"; return; }
  read -r m lo hi <<< "$(stats "$1" "$2")"
  awk -v m="$m" -v lo="$lo" -v hi="$hi" 'BEGIN { printf "%.4g (%.4g-%.4g)", m, lo, hi }'
}
median() { [[ -s "$1" ]] && stats "$1" "$2" | awk '{ print $1 }'; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (a != "" && b > 0) printf "%.2f", a / b; else print "-" }'; }
label() { # bytes
  local b=$1
  if ((b >= 1048576)); then echo "$((b / 1048576)) MiB"; elif ((b >= 1024)); then echo "$((b / 1024)) KiB"; else echo "$b B"; fi
}
# "min-max" of the round trips (columns 3 and 4: the smallest and largest a run met) over a cell's values files, with
# "!" if max > 2 min.
round_trips() {
  local lo hi
  read -r lo hi <<< "$(cat "$@" 2>/dev/null | awk '{ print $3; print $4 }' | range_of)"
  [[ "$lo" == - ]] && { echo -; return; }
  awk -v lo="$lo" -v hi="$hi" 'BEGIN { printf "%d-%d%s\n", lo, hi, (hi > 2 * lo) ? " !" : "" }'
}
# The median over repetitions of the first file's value / the second's (column 1, time, unless told
# 2, busbw), counting only the repetitions whose two runs met one phase (their round trips, the
# smallest and largest of each, within 1.5x), and how many did: "0.93 (2/3)". For time, Jccl's / Open MPI's;
# for busbw, a type's / float32's (types) or UCX's / the sockets' (ucx).
paired_ratio() { # values, reference values, [column]
  [[ -s "$1" && -s "$2" ]] || { echo "-"; return; }
  local ratios pairs runs m
  ratios="$(paste -d' ' "$1" "$2" | awk -v c="${3:-1}" '$3 ~ /^[0-9.]+$/ && $4 ~ /^[0-9.]+$/ && $7 ~ /^[0-9.]+$/ && $8 ~ /^[0-9.]+$/ && $(c + 4) > 0 {
      lo = $3; hi = $3
      split($4 " " $7 " " $8, rest, " ")
      for (i in rest) { v = rest[i] + 0; if (v < lo) lo = v; if (v > hi) hi = v }
      if (hi <= 1.5 * lo) print $c / $(c + 4) }')"
  runs="$(paste "$1" "$2" | wc -l)"
  [[ -n "$ratios" ]] || { echo "- (0/$runs)"; return; }
  pairs="$(wc -l <<< "$ratios")"
  read -r m _ <<< "$(median_min_max <<< "$ratios")"
  awk -v m="$m" -v k="$pairs" -v n="$runs" 'BEGIN { printf "%.2f (%d/%d)\n", m, k, n }'
}
# A busbw row's last four columns: busbw median (min-max), the ratio of its median to the reference
# row's, the phase-paired ratio ("-" on the reference row itself) and the round trips.
busbw_columns() { # values, reference values
  local paired="-"
  [[ "$1" == "$2" ]] || paired="$(paired_ratio "$1" "$2" 2)"
  printf '%-28s %10s  %-12s %s\n' "$(cell_text "$1" 2)" "$(ratio "$(median "$1" 2 || true)" "$(median "$2" 2 || true)")" \
    "$paired" "$(round_trips "$1" "$2")"
}
name_of() { case "$1" in all_reduce) echo AllReduce ;; all_gather) echo AllGather ;; reduce_scatter) echo ReduceScatter ;; broadcast) echo Broadcast ;; esac; }

echo
echo "# Jccl $(./jccl info 2>/dev/null | awk '/^jccl / { print $2; exit }') vs Open MPI $(mpirun --version 2>/dev/null | head -1 | awk '{print $NF}'), $reps repetition(s), interleaved; $(nproc) CPUs, started $(cat "$out/started" 2>/dev/null || echo "(unknown)")"
echo "# time: µs per call, median (min-max); Jccl/MPI: ratio of the medians, below 1.00 Jccl is faster"
echo "# line ns: a cache line's round trip between two CPUs during the cell's timed loops, watched every 0.5 s and probed after each run (bench/core_probe); !: the runs met both of the VM's phases"
last_section=""
for cell in "${cells[@]}"; do
  IFS='|' read -r id section coll np bytes transport modes type mpi <<< "$cell"
  if [[ "$section" != "$last_section" ]]; then
    last_section="$section"
    echo
    case "$section" in
      ar-shm) echo "## AllReduce float32 sum, shared memory (Open MPI: vader BTL)" ;;
      ar-tcp) echo "## AllReduce float32 sum, TCP only (Jccl: JCCL_SHM_DISABLE=1; Open MPI: --mca btl tcp,self)" ;;
      others) echo "## AllGather, ReduceScatter, Broadcast float32, shared memory (AllGather/ReduceScatter: the small row is 8 B per rank)" ;;
      types) echo "## AllReduce sum by data type, 2 ranks, shared memory, -z 2: busbw GB/s, and the ratio to float32's"; printf '%-10s %-10s %-28s %10s  %-12s %s\n' size type "busbw GB/s" "/float32" "paired" "line ns" ;;
      ucx) echo "## AllReduce float32 64 MiB, 2 ranks, JCCL_SHM_DISABLE=1, -z 2: JCCL_NET=UCX against Jccl's sockets (busbw GB/s)"; printf '%-10s %-28s %10s  %-12s %s\n' net "busbw GB/s" "/sockets" "paired" "line ns" ;;
    esac
    if [[ "$section" == ar-* || "$section" == others ]]; then
      printf '%-14s %5s %-8s %-26s %-26s %-26s %8s %8s  %-12s %-12s %s\n' collective ranks size "Jccl -z 0" "Jccl -z 2" "Open MPI" "z0/MPI" "z2/MPI" "z0 paired" "z2 paired" "line ns"
    fi
  fi
  case "$section" in
    ar-*|others)
      mpi_file="$out/$id-mpi.values"
      mm="$(median "$mpi_file" 1 || true)"
      j0="$(median "$out/$id-jccl-z0.values" 1 || true)"
      j2="$(median "$out/$id-jccl-z2.values" 1 || true)"
      printf '%-14s %5s %-8s %-26s %-26s %-26s %8s %8s  %-12s %-12s %s\n' "$(name_of "$coll")" "$np" "$(label "$bytes")" \
        "$(cell_text "$out/$id-jccl-z0.values" 1)" "$(cell_text "$out/$id-jccl-z2.values" 1)" "$(cell_text "$mpi_file" 1)" \
        "$(ratio "$j0" "$mm")" "$(ratio "$j2" "$mm")" \
        "$(paired_ratio "$out/$id-jccl-z0.values" "$mpi_file")" "$(paired_ratio "$out/$id-jccl-z2.values" "$mpi_file")" \
        "$(round_trips "$out/$id-jccl-z0.values" "$out/$id-jccl-z2.values" "$mpi_file")"
      if ((bytes >= 1048576)) && [[ -s "$mpi_file" ]]; then
        printf '%-14s %5s %-8s %-26s %-26s %-26s\n' "  busbw GB/s" "" "" "$(cell_text "$out/$id-jccl-z0.values" 2)" \
          "$(cell_text "$out/$id-jccl-z2.values" 2)" "$(cell_text "$mpi_file" 2)"
      fi
      ;;
    types)
      printf '%-10s %-10s ' "$(label "$bytes")" "$type"
      busbw_columns "$out/$id-jccl-z2.values" "$out/types-float-$bytes-jccl-z2.values"
      ;;
    ucx)
      printf '%-10s ' "${id#ucx-}"
      busbw_columns "$out/$id-jccl-z2.values" "$out/ucx-tcp-jccl-z2.values"
      ;;
  esac
done
