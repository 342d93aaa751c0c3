# bench/common.sh: what the benchmark scripts share; sourced, not run.

# Prints script $1's help: its opening comment (from line 2 to the first line that is not one), without "# ".
# Read from the comment itself, so the help never goes stale when the comment grows.
print_help() {
  awk 'NR == 1 { next } !/^#/ { exit } { sub(/^# ?/, ""); print }' "$1"
}

# Refuses an argument script $1 does not know, as every benchmark script does: a message and exit status 2.
unknown_argument() {
  echo "$1: unknown argument '$2' (try --help)" >&2
  exit 2
}

# Sets java_bin to a JDK 25's java ($JAVA_HOME first, then /usr/lib/jvm), or exits naming the caller.
find_java25() {
  java_bin=""
  local candidate
  for candidate in "${JAVA_HOME:-}" /usr/lib/jvm/*25*; do
    [[ -n "$candidate" && -x "$candidate/bin/java" ]] || continue
    "$candidate/bin/java" -version 2>&1 | grep -Eq 'version "25' && { java_bin="$candidate/bin/java"; return; }
  done
  echo "$1: no JDK 25 found (set JAVA_HOME)" >&2
  exit 1
}

# "smallest largest" of the cache-line round trips (ns) a benchmark run's timed loops met, or "- -" if none was
# measured: the probe $2 made right after the run, and the samples of bench/core_probe's watch file $1 ("<monotonic
# ms> <ns>" lines) from a second before the timed loops began to the run's end $3 (monotonic ms). The loops' start is
# reckoned back from the end by their length $4 (µs), so the warm-up before them, 5-20 s of a Jccl run, does not count.
phase_range() { # watch-file probe-after end-ms timed-µs
  local from
  from="$(awk -v e="$3" -v t="$4" 'BEGIN { printf "%d", e - t / 1000 - 1000 }')"
  { echo "$2"; awk -v s="$from" -v e="$3" '$1 >= s && $1 <= e { print $2 }' "$1" 2>/dev/null; } | range_of
}

# "smallest largest" of the numbers on stdin, one a line (other lines, such as a probe's "-", are skipped), or "- -".
range_of() {
  awk '/^[0-9.]+$/ { v = $1 + 0; if (n == 0 || v < lo) lo = v; if (n == 0 || v > hi) hi = v; n++ }
    END { if (n == 0) print "- -"; else print lo, hi }'
}

# Makes $2 pretend hosts as network namespaces $1-h0 … joined by a bridge in $1-sw (veth jv<h> at
# 10.77.0.<h+1>/24, as the tests do), and removes every $1-* namespace when the script exits. Needs root.
make_netns_hosts() {
  local prefix="$1" hosts="$2" h ns
  # shellcheck disable=SC2064 # the prefix is fixed now
  trap "remove_netns '$prefix'" EXIT
  ip netns add "$prefix-sw"
  ip -n "$prefix-sw" link add br0 type bridge
  ip -n "$prefix-sw" link set br0 up
  for ((h = 0; h < hosts; h++)); do
    ns="$prefix-h$h"
    ip netns add "$ns"
    ip link add "jv$h" netns "$ns" type veth peer name "sw$h" netns "$prefix-sw"
    ip -n "$prefix-sw" link set "sw$h" master br0
    ip -n "$prefix-sw" link set "sw$h" up
    ip netns exec "$ns" sh -c 'echo 1 > /proc/sys/net/ipv6/conf/all/disable_ipv6'
    ip -n "$ns" addr add "10.77.0.$((h + 1))/24" dev "jv$h"
    ip -n "$ns" link set "jv$h" up
    ip -n "$ns" link set lo up
  done
}

remove_netns() {
  local ns
  for ns in $(ip netns list | awk '{print $1}' | grep "^$1-" || true); do ip netns del "$ns" || true; done
}
