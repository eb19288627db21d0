#!/bin/bash
# var.sh ROUNDS OUT: the flash variants interleaved at 2 threads (plain, soft cap 50, ALiBi 8 at
# H8 N4096 d128 causal; window 4096 at H2 N32768); per round the median time and GFLOP/s of the visible pairs.
rounds=$1 out=$2
echo "round,case,time_median_s,gflops" > $out
P="--kernel flash --d-head 128 --causal --threads 2 --reps 5 --warmup 0.2 --no-probe --format csv --quiet"
for r in $(seq 1 $rounds); do
  for spec in "plain:--heads 8 --seq 4096" "softcap50:--heads 8 --seq 4096 --softcap 50" "alibi8:--heads 8 --seq 4096 --alibi 8" "window4096-N32K:--heads 2 --seq 32768 --window 4096"; do
    lab=${spec%%:*}; args=${spec#*:}
    ./headroom run $P $args 2>/dev/null | tail -1 | awk -F, -v r=$r -v l=$lab '{print r","l","$17","$22}' >> $out
  done
done
