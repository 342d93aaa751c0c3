#!/usr/bin/env bash
# bench/multihost.sh: hierarchical against flat-ring AllReduce on pretend hosts (issue 6).
#
#   bench/multihost.sh              2 hosts × 2 ranks, 3 repetitions, sizes 1 MiB .. 64 MiB
#   bench/multihost.sh -r 5         five repetitions
#   bench/multihost.sh --hosts 3    3 hosts × 2 ranks
#
# Makes network namespaces joined by a bridge (as the tests do: veth jv<i> at 10.77.0.<i+1>), runs
# `jccl perf all_reduce` with JCCL_ALGO=Ring and JCCL_ALGO=Hierarchical alternately, ranks of one
# host sharing memory and hosts talking TCP over their veths, and prints busbw per size: the
# median (min-max) of each and their ratio. Needs root (ip netns). Removes its namespaces on exit.
# On one machine the "network" is the kernel's veth path, CPU-bound like loopback; on real hosts
# the gain of sending each byte across fewer network hops is larger. A benchmark, not a test.
set -euo pipefail
cd "$(dirname "$0")/.."
source bench/common.sh

reps=3
hosts=2
per_host=2
while [[ $# -gt 0 ]]; do
  case "$1" in
    -r|--reps) reps="${2:?-r needs a number}"; shift ;;
    --hosts) hosts="${2:?--hosts needs a number}"; shift ;;
    -h|--help) print_help "$0"; exit 0 ;;
    *) unknown_argument bench/multihost.sh "$1" ;;
  esac
  shift
done
[[ "$(id -u)" == 0 ]] || { echo "bench/multihost.sh: needs root for ip netns" >&2; exit 1; }

./jccl info >/dev/null   # builds tools/target/jccl.jar when needed
find_java25 bench/multihost.sh
jar="$PWD/tools/target/jccl.jar"
out="bench/target/multihost"
mkdir -p "$out"

prefix="jccl-mh$$"
make_netns_hosts "$prefix" "$hosts"

size=$((hosts * per_host))
# One perf run with JCCL_ALGO=$1, its output in $2.
run_perf() {
  local algo="$1" file="$2" secret pids=()
  secret="$(od -An -tx1 -N16 /dev/urandom | tr -d ' \n')"
  for ((r = 0; r < size; r++)); do
    ip netns exec "$prefix-h$((r / per_host))" env JCCL_RANK="$r" JCCL_WORLD_SIZE="$size" \
      JCCL_ROOT="10.77.0.1:29500" JCCL_SECRET="$secret" JCCL_SOCKET_IFNAME=jv JCCL_HOSTID="host-$((r / per_host))" \
      JCCL_ALGO="$algo" JCCL_TIMEOUT=120 \
      "$java_bin" --enable-native-access=ALL-UNNAMED -jar "$jar" perf all_reduce -b 1M -e 64M -f 4 -n 20 -w 5 \
      >"$file.$r" 2>&1 &
    pids+=($!)
  done
  local failed=0
  for p in "${pids[@]}"; do wait "$p" || failed=1; done
  [[ $failed == 0 ]] || { echo "perf with JCCL_ALGO=$algo failed, see $file.*" >&2; tail -5 "$file.0" >&2; exit 1; }
  mv "$file.0" "$file"
}

for ((i = 1; i <= reps; i++)); do
  for algo in Ring Hierarchical; do
    [[ $((i % 2)) == 0 ]] && algo=$([[ $algo == Ring ]] && echo Hierarchical || echo Ring)
    echo "run $i/$reps: JCCL_ALGO=$algo" >&2
    run_perf "$algo" "$out/$algo.$i.txt"
  done
done

# busbw (out of place) per size, for every run of one algorithm: "bytes busbw" lines.
busbw() { awk '/^ *[0-9]+ +[0-9]+ +float/ {print $1, $8}' "$@"; }
echo "AllReduce float32 sum, $hosts hosts × $per_host ranks (shm inside a host, TCP between), busbw GB/s, median (min-max) of $reps"
printf '%12s  %-22s  %-22s  %s\n' bytes Ring Hierarchical Hier/Ring
for bytes in $(busbw "$out"/Ring.1.txt | awk '{print $1}'); do
  stats() { busbw "$out"/"$1".*.txt | awk -v b="$bytes" '$1 == b {print $2}' | sort -g |
    awk '{v[NR] = $1} END {m = (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2; printf "%.2f %.2f %.2f", m, v[1], v[NR]}'; }
  read -r rm rlo rhi <<<"$(stats Ring)"
  read -r hm hlo hhi <<<"$(stats Hierarchical)"
  printf '%12s  %-22s  %-22s  %.2f\n' "$bytes" "$rm ($rlo-$rhi)" "$hm ($hlo-$hhi)" "$(awk -v a="$hm" -v b="$rm" 'BEGIN {print (b > 0 ? a / b : 0)}')"
done
