#!/usr/bin/env bash
# isa-vs-fixed.sh — the portable binary against the fixed builds it replaces, interleaved:
# its best level against make NATIVE=1, and its avx2 level (--isa avx2) against make ISA=avx2,
# on flash, gqa (scripts/isa-vs-fixed.ini) and decode (isa-vs-fixed-decode.ini), every point in ABBA pairs by
# `headroom ab` (each binary a worker; a wrapper script runs the portable one at --isa avx2).
# The target: within 3% either way. Builds what is missing first.
#   usage: scripts/isa-vs-fixed.sh [--rounds K] [--reps R] [ab flags...]
# Take the lock other timers use: flock /tmp/hr-timing.lock scripts/isa-vs-fixed.sh
set -euo pipefail
cd "$(dirname "$0")/.."
make -s -j"$(nproc)" >/dev/null
make -s -j"$(nproc)" NATIVE=1 >/dev/null
make -s -j"$(nproc)" ISA=avx2 >/dev/null
out=build/isa-vs-fixed
mkdir -p "$out"
printf '#!/bin/sh\nexec %s --isa avx2 "$@"\n' "$PWD/headroom" > "$out/portable-avx2"
chmod +x "$out/portable-avx2"
args=(--threshold 3 "$@") # ab's rounds of fresh workers unless the flags say otherwise
echo "== $(./headroom --version | sed -n 's/^isa *//p')"
echo "== best level: make NATIVE=1 (base) vs portable (new)"
for c in isa-vs-fixed isa-vs-fixed-decode; do
    ./headroom ab build/native/headroom ./headroom scripts/$c.ini "${args[@]}" --out "$out/native-$c" || true
done
if ./headroom --isa avx2 list >/dev/null 2>&1; then
    echo "== avx2 level: make ISA=avx2 (base) vs portable --isa avx2 (new)"
    for c in isa-vs-fixed isa-vs-fixed-decode; do
        ./headroom ab build/avx2/headroom "$out/portable-avx2" scripts/$c.ini "${args[@]}" --out "$out/avx2-$c" || true
    done
else
    echo "== avx2 level: this CPU lacks it, not compared"
fi
