#!/bin/bash
# decode-cputime.sh — decode's targets measured by CPU time per thread on a shared machine:
# every build's decode rows, the triad and a read-only stream (decode only reads), interleaved pass by pass (the builds' order reversed
# every other pass), then medians over the passes.
#
# usage: scripts/decode-cputime.sh PASSES BUILD_DIR [BUILD_DIR ...]
#   BUILD_DIR: a build's directory (build/portable from make, with its levels' level_*.o, the
#   level the CPU runs best chosen at run time as headroom does; build/native from
#   make NATIVE=1, build/avx2, ...) whose kernels/ and harness/base/ objects are linked into
#   scripts/decode-cputime.c (compiled
#   -O3 -march=native, so the triad is vectorized: at -O2 it ran at 21 instead of 28 GB/s).
#   Env: CONFIGS (default: every kv type at L16384 and f32 at L4096, 1 and 2 threads; a
#   config is KV:L:T, or Q/KV:L:T for Q and O in another type, e.g. bf16/bf16:16384:1),
#   REPS (calls per row, 15), LOCK (a flock file every timing runs under, /tmp/hr-timing.lock).
# Prints the raw lines (pass, build, kv, L, T, cpu median ms) and a table per build:
# tokens/s, GB/s, fraction of the triad of the same passes, ratio to f32 at the same L, T (of the
# medians, and the median and range of the per-pass ratios: each pass times f32 and the row minutes apart).
set -euo pipefail
P=${1:?passes}; shift
REPS=${REPS:-15}
LOCK=${LOCK:-/tmp/hr-timing.lock}
CONFIGS=${CONFIGS:-"f32:16384:1 f16:16384:1 bf16:16384:1 q8_0:16384:1 q4_0:16384:1 f32:4096:1 f32:16384:2 f16:16384:2 bf16:16384:2 q8_0:16384:2 q4_0:16384:2 f32:4096:2"}
here=$(cd "$(dirname "$0")/.." && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
bins=()
for b in "$@"; do
  d=$(cd "$b" && pwd)
  out="$tmp/$(echo "$b" | tr '/' '_')"
  gcc -std=c11 -O3 -march=native -fopenmp $(find "$here/kernels" -type d -printf '-I%p ') -I"$here/harness/base" -I"$d" -D_GNU_SOURCE \
    "$here/scripts/decode-cputime.c" $(find "$d"/kernels -name '*.o') $(ls "$d"/level_*.o 2>/dev/null) "$d"/harness/base/*.o -o "$out" \
    $(pkg-config --libs libcjson) $(pkg-config --libs openblas 2>/dev/null || true) -lm
  bins+=("$out")
done
export OMP_WAIT_POLICY=passive OMP_PROC_BIND=close OMP_PLACES=cores
raw="$tmp/raw"
for p in $(seq 1 "$P"); do
  for T in 1 2; do
    echo "$p triad triad 0 $T $(flock "$LOCK" "${bins[0]}" triad 0 "$T" "$REPS" | awk '{print $2}')" | tee -a "$raw"
    echo "$p load load 0 $T $(flock "$LOCK" "${bins[0]}" load 0 "$T" "$REPS" | awk '{print $2}')" | tee -a "$raw"
  done
  for c in $CONFIGS; do
    IFS=: read -r kv L T <<<"$c"
    # builds in turn, the order reversed every other pass: with a fixed order the same
    # objects read differently first and second (perf-log 0243)
    order=("${!bins[@]}")
    if [ $((p % 2)) -eq 0 ]; then order=($(printf '%s\n' "${order[@]}" | tac)); fi
    for i in "${order[@]}"; do
      echo "$p ${@:i+1:1} $kv $L $T $(flock "$LOCK" "${bins[$i]}" "$kv" "$L" "$T" "$REPS" | awk '{print $2}')" | tee -a "$raw"
    done
  done
done
python3 - "$raw" <<'PY'
import sys, statistics as st
rows = [l.split() for l in open(sys.argv[1])]
med, by_pass = {}, {}
for p, b, kv, L, T, ms in rows:
    med.setdefault((b, kv, int(L), int(T)), []).append(float(ms))
    by_pass[(p, b, kv, int(L), int(T))] = float(ms)
tri = {T: 12.0 * ((256 << 20) // 12) / (st.median(v) * 1e-3) * 1e-9 for (b, kv, L, T), v in med.items() if kv == 'triad'}
# the read-only stream (decode-cputime load): each thread's part a multiple of 128 floats
lod = {T: 4.0 * ((256 << 20) // 4 // T // 128 * 128 * T) / (st.median(v) * 1e-3) * 1e-9 for (b, kv, L, T), v in med.items() if kv == 'load'}
row_bytes = {'f32': 512, 'f16': 256, 'bf16': 256, 'q8_0': 136, 'q4_0': 72}
print("\nmedians over %d passes (CPU time per thread); triad GB/s: %s; read-only stream GB/s: %s" % (len(set(r[0] for r in rows)), ", ".join("%dT %.1f" % (t, g) for t, g in sorted(tri.items())), ", ".join("%dT %.1f" % (t, g) for t, g in sorted(lod.items())) or "-"))
print("%-16s %-9s %6s %2s %9s %9s %8s %8s %8s %9s  %s" % ("build", "kv", "L", "T", "ms", "tokens/s", "GB/s", "/triad", "/load", "x f32", "x f32 by pass: median [min-max]"))
for (b, kv, L, T), v in sorted(med.items()):
    if kv in ('triad', 'load'): continue
    ms = st.median(v); gbs = 2 * 8 * L * row_bytes[kv.split('/')[-1]] / (ms * 1e-3) * 1e-9
    f32 = med.get((b, 'f32', L, T))
    ratio = "%.2f" % (st.median(f32) / ms) if f32 else "-"
    lf = "%.3f" % (gbs / lod[T]) if T in lod else "-"
    # fp32 and this row of the same pass, minutes apart at most: the ratio of the pair
    # moves less with the machine's phase than the ratio of the two medians
    pr = [by_pass[(p, b, 'f32', L, T)] / by_pass[(p, b, kv, L, T)] for p in sorted(set(r[0] for r in rows))
          if (p, b, 'f32', L, T) in by_pass and (p, b, kv, L, T) in by_pass]
    pair = "%.2f [%.2f-%.2f]" % (st.median(pr), min(pr), max(pr)) if pr and kv != 'f32' else "-"
    tf = "%.3f" % (gbs / tri[T]) if T in tri else "-"  # no triad row at this thread count: no ratio
    print("%-16s %-9s %6d %2d %9.3f %9.1f %8.2f %8s %8s %9s  %s" % (b, kv, L, T, ms, 1e3 / ms, gbs, tf, lf, ratio, pair))
PY
