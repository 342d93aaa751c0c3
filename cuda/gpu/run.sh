#!/usr/bin/env bash
# Runs on the GPU machine, from the bundle bundle.sh made (no JDK, no network needed there):
#   run.sh tests   the GPU tests (CUDA binding, staged path with 1, 2, 3 and 5 ranks on GPU 0, NCCL with 1 rank, NCCL with a rank per GPU)
#   run.sh perf    all_reduce and all_gather tables: host memory, staged (2 ranks sharing GPU 0), NCCL (1 rank per GPU)
# Writes its results under $OUT (the device tool's output folder), else ./out.
set -uo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
out="${OUT:-$here/out}"
mkdir -p "$out"
java="$here/jrt/bin/java"
jccl=("$java" -jar "$here/jccl.jar")
max="${MAX_BYTES:-512M}"

# PyTorch's wheels carry libnccl.so.2 (and libcudart); Jccl looks in site-packages itself, this only records what is there.
find / -xdev \( -name 'libnccl.so*' -o -name 'libcudart.so*' \) 2>/dev/null | grep -v '^/proc' > "$out/libraries.txt"
nvidia-smi -L > "$out/gpus.txt" 2>&1
nvidia-smi topo -m >> "$out/gpus.txt" 2>&1

case "${1:-all}" in
  tests|all)
    "${jccl[@]}" info > "$out/info.txt" 2>&1
    "$java" --enable-native-access=ALL-UNNAMED -cp "$here/lib/*" dev.jccl.cuda.GpuTestMain 2>&1 | tee "$out/gpu-tests.txt"
    ;;&
  perf|all)
    common=(-b 1M -e "$max" -f 4 -n 20 -w 5 -c 1)
    for bench in all_reduce all_gather; do
      "${jccl[@]}" perf "$bench" -np 2 "${common[@]}" --json "$out/$bench-host-np2.json" > "$out/$bench-host-np2.txt" 2>&1
      # One GPU, two ranks: NCCL refuses a shared GPU, so the ranks agree on staging (the header says why).
      "${jccl[@]}" perf "$bench" -np 2 --device cuda "${common[@]}" --json "$out/$bench-staged-np2.json" > "$out/$bench-staged-np2.txt" 2>&1
      # One rank per GPU: NCCL where it loads.
      gpus=$(nvidia-smi -L 2>/dev/null | grep -c '^GPU')
      [[ "$gpus" -ge 1 ]] 2>/dev/null || gpus=1
      "${jccl[@]}" perf "$bench" -np "$gpus" --device cuda "${common[@]}" --json "$out/$bench-nccl-np$gpus.json" > "$out/$bench-nccl-np$gpus.txt" 2>&1
      JCCL_CUDA_PATH=staged "${jccl[@]}" perf "$bench" -np "$gpus" --device cuda "${common[@]}" --json "$out/$bench-staged-np$gpus.json" \
        > "$out/$bench-staged-np$gpus.txt" 2>&1
    done
    grep -H "Avg bus bandwidth\|Device buffers\|Out of bounds" "$out"/*.txt
    ;;
esac
