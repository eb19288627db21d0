#!/usr/bin/env bash
# decode-i8-phases.sh — decode's int8 block step (q8_0/q4_0) timed phase by phase
# (studies/cputime/i8phases.c, decode_i8.c's source included), for each type: the phases
# alone and the whole step with its data in cache (1 block), then over 8 blocks (in L2),
# 64 (in L3) and from memory (2048 q4_0 blocks, 4096 q8_0: ~150 MB), each with and without
# the prefetches. Needs a native build (make NATIVE=1) on a CPU with VNNI; writes the tool
# under build/cputime/. Take the lock other timers use:
#   flock /tmp/hr-timing.lock studies/decode-i8-phases.sh
set -eu
cd "$(dirname "$0")/.."
out=build/cputime
mkdir -p "$out"
studies/cputime/build.sh studies/cputime/i8phases.c "$out/i8phases" -O3 -falign-loops=64 -march=native
for t in q4_0 q8_0; do
    mem=$([ $t = q4_0 ] && echo 2048 || echo 4096)
    "$out/i8phases" $t 1 1
    for nb in 8 64 $mem; do
        "$out/i8phases" $t $nb 1
        "$out/i8phases" $t $nb 0
    done
done
