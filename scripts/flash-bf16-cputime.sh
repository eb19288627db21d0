#!/usr/bin/env bash
# flash-bf16-cputime.sh — flash fp32 against flash bf16 on issue 14's prefill shapes, timed by
# process CPU time per call (scripts/cputime/calls.c), for a machine shared with other jobs
# where wall-clock medians are noise. Per pass, shape and thread count: fp32 then bf16,
# 7 calls each; the roofs by the same clock first (scripts/cputime/roof.c). 2 threads run
# with OMP_WAIT_POLICY=passive so that a thread spinning while its partner is descheduled
# is not counted. Take the lock other timers use: flock /tmp/hr-timing.lock scripts/flash-bf16-cputime.sh
# Needs a native build (make NATIVE=1: build/native/); writes the tools under build/cputime/.
set -eu
cd "$(dirname "$0")/.."
out=build/cputime
mkdir -p "$out"
objs=$(ls build/native/kernels/*.o build/native/harness/base/*.o build/native/harness/measure/*.o \
          build/native/harness/formats/*.o build/native/harness/analyses/*.o)
pkgs="libcjson inih"
pkg-config --exists openblas && pkgs="$pkgs openblas"
gcc -O2 -std=c11 -D_GNU_SOURCE -fopenmp -Ikernels -Iharness/base -Iharness/measure -Ibuild/native \
    $(pkg-config --cflags $pkgs) scripts/cputime/calls.c $objs -o "$out/calls" $(pkg-config --libs $pkgs) -lm
gcc -O3 scripts/cputime/roof.c -o "$out/roof"
"$out/roof"
for pass in 1 2 3; do
    for shape in "16 64 0" "16 64 1" "32 128 1"; do
        for T in 1 2; do
            for dt in f32 bf16; do
                echo "pass$pass $(OMP_WAIT_POLICY=passive "$out/calls" flash $shape $dt $T 7)"
            done
        done
    done
done
