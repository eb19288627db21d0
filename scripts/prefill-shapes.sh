#!/usr/bin/env bash
# prefill-shapes.sh — the six standard prefill shapes, several binaries back to back per
# shape and thread count (so each pair sees the same phase of the machine), PASSES times;
# prints per shape, thread count and binary the median GFLOP/s and % of the in-run FMA
# probe (the `frac_of_ceiling` column of `headroom run`).
#   usage: scripts/prefill-shapes.sh PASSES BINARY [BINARY ...]
#   A binary may be a wrapper: printf '#!/bin/sh\nexec ./headroom --isa avx2 "$@"\n'.
#   Env: THREADS ("1 2"), LOCK (a flock file every run takes, /tmp/hr-timing.lock),
#   EXTRA (more `headroom run` flags, e.g. "--dtype bf16").
set -euo pipefail
P=${1:?passes}; shift
[ $# -ge 1 ] || { echo "usage: $0 PASSES BINARY [BINARY ...]" >&2; exit 2; }
LOCK=${LOCK:-/tmp/hr-timing.lock}
SHAPES=("flash 8 8 1024 64 0" "flash 16 16 2048 64 0" "flash 32 32 2048 128 1"
        "gqa 32 8 2048 128 1" "gqa 32 8 4096 128 1" "gqa 16 1 2048 64 1")
export OMP_WAIT_POLICY=passive OMP_PROC_BIND=close OMP_PLACES=cores
raw=$(mktemp)
trap 'rm -f "$raw"' EXIT
for p in $(seq 1 "$P"); do
  for s in "${SHAPES[@]}"; do
    read -r k h hk n d c <<<"$s"
    for T in ${THREADS:-1 2}; do
      for b in "$@"; do
        cz=(); [ "$c" = 1 ] && cz=(--causal)
        # shellcheck disable=SC2086
        r=$(flock "$LOCK" "$b" run --kernel "$k" --heads "$h" --kv-heads "$hk" --seq "$n" --d-head "$d" \
            "${cz[@]}" --threads "$T" --reps 5 --min-time 0.1 ${EXTRA:-} --format csv | tail -1)
        echo "$p $b $k/H$h/$hk/N$n/d$d${cz:+/causal} $T $(echo "$r" | awk -F, '{print $22, $37}')" | tee -a "$raw"
      done
    done
  done
done
python3 - "$raw" <<'PY'
import sys, statistics as st, collections
d = collections.defaultdict(list)
for line in open(sys.argv[1]):
    p, b, s, T, g, fr = line.split()
    d[(s, int(T), b)].append((float(g), float(fr)))
print("\nmedians over the passes: GFLOP/s, % of the in-run FMA probe")
for (s, T, b), v in sorted(d.items()):
    print("%-32s T%d  %-28s %7.1f  %5.1f%%" % (s, T, b, st.median(x[0] for x in v), 100 * st.median(x[1] for x in v)))
PY
