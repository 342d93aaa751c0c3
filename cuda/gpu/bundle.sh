#!/usr/bin/env bash
# Packs what a GPU machine needs to run Jccl's GPU checks and device-buffer benchmarks, for a
# machine with CUDA, PyTorch (NCCL in its wheels) and Python but no JDK and no network:
#   cuda/target/gpu-bundle/  jrt/ (a jlink'd Java runtime), jccl.jar, lib/ (jars for the GPU tests), run.sh
# About 50 MB. Build first: ./mvnw -o -pl cuda install && ./mvnw -o -pl tools package -DskipTests
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
java_home="${JAVA_HOME:-/usr/lib/jvm/temurin-25-jdk-amd64}"
m2="${M2_REPO:-$HOME/.m2/repository}"
version=0.1.0-SNAPSHOT
out="$root/cuda/target/gpu-bundle"

need() { [[ -e "$1" ]] || { echo "bundle.sh: $1 is missing; $2" >&2; exit 1; }; }
need "$root/tools/target/jccl.jar" "build it: ./mvnw -o -pl tools package -DskipTests"
need "$root/cuda/target/test-classes/dev/jccl/cuda/GpuTestMain.class" "build it: ./mvnw -o -pl cuda install"

rm -rf "$out"
mkdir -p "$out/lib"
"$java_home/bin/jlink" --add-modules java.base,java.management,jdk.unsupported,jdk.incubator.vector --strip-debug --no-header-files --no-man-pages \
  --compress=zip-9 --output "$out/jrt"
cp "$root/tools/target/jccl.jar" "$out/"
"$java_home/bin/jar" --create --file "$out/lib/jccl-cuda-tests.jar" -C "$root/cuda/target/test-classes" .
cp "$root/cuda/target/jccl-cuda-$version.jar" "$out/lib/"
cp "$m2/dev/jccl/jccl-core/$version/jccl-core-$version.jar" "$m2/dev/jccl/jccl-core/$version/jccl-core-$version-tests.jar" "$out/lib/"
junit=$(sed -n 's:.*<junit.version>\(.*\)</junit.version>.*:\1:p' "$root/pom.xml")
platform="1.${junit#5.}"
cp "$m2/org/junit/jupiter/junit-jupiter-api/$junit/junit-jupiter-api-$junit.jar" \
   "$m2/org/junit/platform/junit-platform-commons/$platform/junit-platform-commons-$platform.jar" "$out/lib/"
cp "$m2/org/opentest4j/opentest4j/1.3.0/opentest4j-1.3.0.jar" "$m2/org/apiguardian/apiguardian-api/1.1.2/apiguardian-api-1.1.2.jar" "$out/lib/"
cp "$root/cuda/gpu/run.sh" "$out/"
du -sh "$out"
