#!/usr/bin/env bash
# bench/kernels.sh: JMH benchmarks of the reduce kernels against a plain MemorySegment.copy.
#
#   bench/kernels.sh                      every kernel, size and memory kind, Vector API and scalar (about an hour)
#   bench/kernels.sh -p memory=NATIVE -p bytes=1048576,67108864     a narrower run
#   bench/kernels.sh -p kernel=FLOAT32_SUM -p bytes=1048576    any JMH option narrows or changes the run
#   JMH_OPTS='-f 3 -wi 5 -i 10' bench/kernels.sh               longer, steadier settings
#
# Builds bench/target/benchmarks.jar (Maven profile jmh-jar; ./mvnw verify only compiles the
# benchmarks), runs it with short settings, keeps JMH's CSV in bench/target/kernels.csv and prints
# GB/s per kernel, size and memory kind (bytes of one operand / time per call), with the kernel's
# speed as a percentage of copying the same bytes. Numbers from a busy machine are noisy: rerun.
set -euo pipefail
cd "$(dirname "$0")/.."

java_home() {
  if [[ -n "${JAVA_HOME:-}" && -x "$JAVA_HOME/bin/java" ]]; then echo "$JAVA_HOME"; return; fi
  for candidate in /usr/lib/jvm/*25*; do
    [[ -x "$candidate/bin/java" ]] && { echo "$candidate"; return; }
  done
  echo "bench/kernels.sh: needs a JDK 25 (set JAVA_HOME)" >&2
  exit 1
}
export JAVA_HOME="$(java_home)"
command -v python3 >/dev/null || { echo "bench/kernels.sh: needs python3 to print the table" >&2; exit 1; }

echo "building bench/target/benchmarks.jar…" >&2
./mvnw -q -pl bench -am package -DskipTests -Pjmh-jar >&2

csv=bench/target/kernels.csv
read -r -a settings <<< "${JMH_OPTS:--f 1 -wi 3 -w 300ms -i 5 -r 300ms}"
"$JAVA_HOME/bin/java" -Duser.language=en -jar bench/target/benchmarks.jar \
  "${settings[@]}" -rf csv -rff "$csv" "$@" 'dev.jccl.bench.(ReduceKernelBench|CopyBench|PollutedProfileBench)' >&2

python3 - "$csv" <<'PY'
import csv, sys
from collections import defaultdict

rows = list(csv.DictReader(open(sys.argv[1])))
score = {}      # (bench, kernel, memory, bytes) -> ns/op
error = {}
for r in rows:
    bench = r["Benchmark"].rsplit(".", 2)[-2]
    kernel = r.get("Param: kernel") or "copy"
    if r.get("Param: kernels") == "scalar":
        kernel += " scalar"
    key = (bench, kernel, r["Param: memory"], int(r["Param: bytes"]))
    score[key] = float(r["Score"])
    error[key] = float(r["Score Error (99.9%)"] or "nan")

sizes = sorted({k[3] for k in score})
def label(b):
    return f"{b >> 20} MiB" if b >= 1 << 20 else f"{b >> 10} KiB"

print("GB/s = bytes of one operand / time per call (a reduce reads 2x and writes 1x those bytes;")
print("a copy reads 1x and writes 1x); (n%) = speed as a percentage of the copy in the same memory")
for memory in ["NATIVE", "HEAP", "MIXED"]:
    if not any(k[2] == memory for k in score):
        continue
    print()
    print(f"{memory:<30}" + "".join(f"{label(s):>18}" for s in sizes))
    order = [("CopyBench", "copy")] + sorted({(k[0], k[1]) for k in score if k[0] != "CopyBench" and k[2] == memory},
                                             key=lambda bk: (bk[0] != "ReduceKernelBench", bk[1]))
    for bench, kernel in order:
        name = kernel if bench != "PollutedProfileBench" else kernel + " after native"
        cells = []
        for s in sizes:
            ns = score.get((bench, kernel, memory, s))
            if ns is None:
                cells.append(f"{'-':>11}{'':<7}")
                continue
            gbs = s / ns
            copy = score.get(("CopyBench", "copy", memory, s))
            pct = f" ({100 * copy / ns:3.0f}%)" if copy and bench != "CopyBench" else ""
            cells.append(f"{gbs:>11.2f}{pct:<7}")
        print(f"{name:<30}" + "".join(cells))
PY
