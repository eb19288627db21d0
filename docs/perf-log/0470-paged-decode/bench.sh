#!/bin/bash
# Alternating runs: contiguous, P16, P64, P256 in turn, rounds x types x threads.
cd /work/wt-paged
out=$1; rounds=${2:-3}
: > "$out"
for r in $(seq 1 $rounds); do
  for kt in f32 q8_0; do
    for T in 1 2; do
      for P in 0 16 64 256; do
        pf=(); [ "$P" = 0 ] || pf=(--page-size $P)
        ./headroom run --kernel decode --heads 32 --kv-heads 8 --seq 1 --seq-kv 16384 --d-head 128 --kv-dtype $kt "${pf[@]}" \
          --threads $T --min-time 0.1 --reps 7 --warmup 0.1 --no-probe --format csv --quiet 2>/dev/null | tail -n 1 | \
          awk -F, -v r=$r -v kt=$kt -v T=$T -v P=$P '{print r","kt","T","P","$17","$21}' >> "$out"
      done
    done
  done
done
