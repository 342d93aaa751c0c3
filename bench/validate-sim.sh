#!/usr/bin/env bash
# bench/validate-sim.sh: jccl sim's predictions against measured collective times (issue 20).
#
#   bench/validate-sim.sh                      one host, np 2..8, then two netns hosts; calibrates first
#   bench/validate-sim.sh --np "2 4 8"         only these rank counts on one host
#   bench/validate-sim.sh --only local|hosts   one part
#   bench/validate-sim.sh --calibration FILE   use FILE instead of measuring (jccl perf --calibrate writes one)
#   bench/validate-sim.sh --rate 4gbit         the two hosts' link, shaped with tbf (default 4gbit)
#   bench/validate-sim.sh --algos "Tree Ring"  only these algorithms (default: every one the machine can run)
#   bench/validate-sim.sh --coll broadcast     another collective than all_reduce (perf's names; rooted at 0)
#
# Measures `jccl perf all_reduce` (or --coll's; float32, sum, -z 2, out of place) for every algorithm forced with JCCL_ALGO
# (protocol Simple: the simulator models the schedules, not the LL outbox), sizes 4 B to 64 MiB x8, and runs
# `jccl sim` for the same machine with the calibrated figures: on one host, --ranks-per-host N --cpus-per-host
# (this machine's CPUs); between hosts, network namespaces joined by a bridge (veth jv<h> at 10.77.0.<h+1>, as
# bench/multihost.sh), each host's link shaped with a tbf qdisc, simulated with --inter (calibrated socket step,
# the tbf rate). Prints measured, simulated, their ratio, and whether it is within 25%. One sitting, one run per
# cell: a benchmark, not a test. The two-host part needs root. About 40 minutes on 2 cores.
set -euo pipefail
cd "$(dirname "$0")/.."
source bench/common.sh

nps="2 3 4 5 6 7 8"
only=""
calibration=""
rate="4gbit"
algos_only=""
coll="all_reduce"
while [[ $# -gt 0 ]]; do
  case "$1" in
    --np) nps="${2:?--np needs rank counts}"; shift ;;
    --only) only="${2:?--only needs local or hosts}"; shift ;;
    --calibration) calibration="${2:?--calibration needs a file}"; shift ;;
    --rate) rate="${2:?--rate needs a tc rate such as 4gbit}"; shift ;;
    --algos) algos_only="${2:?--algos needs algorithm names such as Tree}"; shift ;;
    --coll) coll="${2:?--coll needs a collective such as broadcast}"; shift ;;
    -h|--help) print_help "$0"; exit 0 ;;
    *) unknown_argument bench/validate-sim.sh "$1" ;;
  esac
  shift
done

out="bench/target/validate-sim"
mkdir -p "$out"
say() { echo "[$(date -u +%H:%M:%S)] $*" >&2; }
./jccl info >/dev/null # builds the tool when needed
cpus="$(nproc)"
sizes=(-b 4 -e 64M -f 8)
# perf times the mean of its iterations, and on a 2-vCPU VM one rescheduled iteration in ten (500 µs where the rest
# take 3) moves a small size's mean tenfold: small sizes get 200 iterations, large ones 5 (each is milliseconds).
sweeps=("-b 4 -e 128K -f 8 -n 200 -w 20" "-b 1M -e 64M -f 8 -n 5 -w 2")
# JVM warm-up before the first row: with 1 s the small rows of two ranks came out 2-30 µs at random (the JIT still
# compiling), with 5 s 1.5-2.7 µs run after run. Ranks that share the CPUs compile on them together: 5 s per rank per
# CPU, at least 8 (8 ranks on 2 CPUs measured 1 MiB AllReduces at 2-50x the simulated time after 8 s, 2026-11-28).
warmup() { if (($1 > cpus)); then echo $((5 * $1 / cpus > 8 ? 5 * $1 / cpus : 8)); else echo 5; fi; }

if [[ -z "$calibration" ]]; then
  calibration="$out/calibration.properties"
  say "calibrating (jccl perf --calibrate) into $calibration"
  ./jccl perf --calibrate --calibration-file "$calibration" 2>/dev/null | tee "$out/calibration.txt" >&2
fi
figure() { awk -v k="$1" '$1 == k { print $3 }' "$calibration"; }

# "bytes µs" per out-of-place row of a perf table.
measured_rows() { awk '/^ *[0-9]+ +[0-9]+ +float/ { print $1, $6 }' "$1"; }

# The simulator's table for a machine as "bytes algorithm µs" lines.
sim_rows() {
  ./jccl sim "$coll" "${sizes[@]}" --calibration "$calibration" "$@" | python3 -c '
import sys
units = {"B": 1, "KiB": 1 << 10, "MiB": 1 << 20, "GiB": 1 << 30}
names = []
for line in sys.stdin:
    t = line.split()
    if line.startswith("#") and "size" in t:
        names = [t[i - 1] for i in range(len(t)) if t[i] == "µs"]
        continue
    if line.startswith("#") or len(t) < 2 or t[1] not in units:
        continue
    size = int(float(t[0]) * units[t[1]])
    for k, name in enumerate(names):
        v = t[2 + 2 * k].rstrip("*")
        if v != "-":
            print(size, name, v)
'
}

# Joins measured (file per algorithm: algo.txt) and simulated rows into the report's lines.
report() { # label, sim rows file, measured dir
  python3 - "$1" "$2" "$3" <<'PY'
import sys, os, glob
label, sim_file, mdir = sys.argv[1:]
sim = {}
for line in open(sim_file):
    b, name, us = line.split()
    sim[(int(b), name)] = float(us)
for path in sorted(glob.glob(os.path.join(mdir, "*.measured"))):
    algo = os.path.basename(path)[: -len(".measured")]
    for line in open(path):
        b, us = line.split()
        b, us = int(b), float(us)
        s = sim.get((b, algo))
        if s is None:
            continue
        ratio = s / us if us > 0 else float("nan")
        print(f"{label:<14} {b:>10} {algo:<18} {us:>12.1f} {s:>12.1f} {ratio:>7.2f} {'yes' if 0.75 <= ratio <= 1.25 else 'NO'}")
PY
}

header() { printf '%-14s %10s %-18s %12s %12s %7s %s\n' machine bytes algorithm "measured µs" "simulated µs" sim/meas "within 25%"; }
results="$out/results.txt"
: > "$results"

if [[ -z "$only" || "$only" == local ]]; then
  for np in $nps; do
    dir="$out/local-np$np"
    mkdir -p "$dir"
    rm -f "$dir"/*.measured # an earlier run's, of other algorithms or another --coll, would be reported as this one's
    for algo in ${algos_only:-Ring OneShot Tree RecursiveDoubling Rabenseifner}; do
      say "np $np, JCCL_ALGO=$algo"
      : > "$dir/$algo.measured"
      for sweep in "${sweeps[@]}"; do
        # shellcheck disable=SC2086 # a sweep is several flags
        JCCL_ALGO="$algo" JCCL_PROTO=Simple JCCL_CALIBRATION=none ./jccl perf "$coll" -np "$np" $sweep \
          -z 2 -c 0 --warmup-time "$(warmup "$np")" > "$dir/$algo.txt" 2> "$dir/$algo.err" ||
          { say "perf failed: $dir/$algo.err"; tail -3 "$dir/$algo.err" >&2; continue; }
        measured_rows "$dir/$algo.txt" >> "$dir/$algo.measured"
      done
    done
    sim_rows --hosts 1 --ranks-per-host "$np" --cpus-per-host "$cpus" > "$dir/sim.rows"
    report "1x$np" "$dir/sim.rows" "$dir" >> "$results"
  done
fi

if [[ -z "$only" || "$only" == hosts ]]; then
  [[ "$(id -u)" == 0 ]] || { echo "bench/validate-sim.sh: the two-host part needs root for ip netns" >&2; exit 1; }
  find_java25 bench/validate-sim.sh
  jar="$PWD/tools/target/jccl.jar"
  prefix="jccl-vs$$"
  make_netns_hosts "$prefix" 2
  for h in 0 1; do
    # The host's link: what leaves it is shaped (tbf; this kernel has no netem, so latency is the veth's own).
    ip netns exec "$prefix-h$h" tc qdisc add dev "jv$h" root tbf rate "$rate" burst 4mb latency 100ms
  done
  gbps="$(python3 -c "
import re, sys
m = re.fullmatch(r'([0-9.]+)([kmg]?)bit', '$rate'.lower())
scale = {'': 1e-9, 'k': 1e-6, 'm': 1e-3, 'g': 1}[m.group(2)]
print(float(m.group(1)) * scale / 8)")"
  net_step="$(figure net.step.us)"
  net_bw="$(figure net.bandwidth.gbps)"
  link_bw="$(python3 -c "print(min($gbps, $net_bw))")"
  for per_host in 1 2; do
    size=$((2 * per_host))
    dir="$out/hosts-2x$per_host"
    mkdir -p "$dir"
    rm -f "$dir"/*.measured # an earlier run's, of other algorithms or another --coll, would be reported as this one's
    algos="Ring OneShot Tree RecursiveDoubling Rabenseifner"
    [[ $per_host -gt 1 ]] && algos="$algos Hierarchical"
    [[ -n "$algos_only" ]] && algos="$algos_only"
    for algo in $algos; do
      say "2 hosts x $per_host, JCCL_ALGO=$algo, link $rate"
      : > "$dir/$algo.measured"
      for sweep in "${sweeps[@]}"; do
        secret="$(od -An -tx1 -N16 /dev/urandom | tr -d ' \n')"
        pids=()
        for ((r = 0; r < size; r++)); do
          # shellcheck disable=SC2086 # a sweep is several flags
          ip netns exec "$prefix-h$((r / per_host))" env JCCL_RANK="$r" JCCL_WORLD_SIZE="$size" \
            JCCL_ROOT="10.77.0.1:29500" JCCL_SECRET="$secret" JCCL_SOCKET_IFNAME=jv \
            JCCL_HOSTID="host-$((r / per_host))" JCCL_ALGO="$algo" JCCL_PROTO=Simple JCCL_CALIBRATION=none \
            JCCL_TIMEOUT=300 "$java_bin" --enable-native-access=ALL-UNNAMED --add-modules jdk.incubator.vector \
            -jar "$jar" perf "$coll" $sweep -z 2 -c 0 --warmup-time "$(warmup "$size")" > "$dir/$algo.txt.$r" 2>&1 &
          pids+=($!)
        done
        failed=0
        for p in "${pids[@]}"; do wait "$p" || failed=1; done
        if [[ $failed == 1 ]]; then say "perf failed: $dir/$algo.txt.0"; tail -3 "$dir/$algo.txt.0" >&2; continue; fi
        mv "$dir/$algo.txt.0" "$dir/$algo.txt"
        measured_rows "$dir/$algo.txt" >> "$dir/$algo.measured"
      done
    done
    sim_rows --hosts 2 --ranks-per-host "$per_host" --cpus-per-host "$cpus" --inter "$net_step,$link_bw" > "$dir/sim.rows"
    report "2x$per_host@$rate" "$dir/sim.rows" "$dir" >> "$results"
  done
fi

echo "# jccl sim against jccl perf, $coll float32 sum, -z 2 out of place, protocol Simple; $cpus CPUs;" \
  "figures from $calibration; $(date -u +%Y-%m-%dT%H:%MZ)"
header
cat "$results"
awk '{ n[$1]++; if ($7 == "yes") y[$1]++ } END { for (m in n) printf "# %s: %d of %d within 25%%\n", m, y[m], n[m] }' \
  "$results" | sort
