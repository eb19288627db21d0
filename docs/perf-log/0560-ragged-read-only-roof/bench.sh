#!/usr/bin/env bash
# bench.sh HEADROOM OUTDIR ROUNDS: the ceilings, then the Zipf batch of 32 (128-32K keys,
# H32/8 d128) on f32 and q8_0 caches at 2 threads against them, ROUNDS times.
hr=$1 out=$2 rounds=${3:-3}
mkdir -p "$out"
for r in $(seq 1 "$rounds"); do
  $hr roofline --threads 1-2 --out "$out/ceilings-$r.json" > "$out/roofline-$r.txt" 2>&1
  for kt in f32 q8_0; do
    $hr decode-batch --dist zipf --batch 32 --len-min 128 --len-max 32768 --kv-dtype $kt --threads 2 --reps 7 \
      --ceilings "$out/ceilings-$r.json" 2>&1 | tail -2 > "$out/batch-$kt-$r.txt"
  done
done
