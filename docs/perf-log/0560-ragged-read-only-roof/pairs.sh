#!/usr/bin/env bash
# pairs.sh HEADROOM OUT ROUNDS: per round likwid-bench's read-only stream over 1 GB at 2
# threads (load_avx512), then the Zipf batch of 32 on f32 and q8_0 at 2 threads, then the
# stream again: the batch's GB/s against the two streams beside it.
hr=$1 out=$2 rounds=${3:-6}
echo "round,load_before_gbs,f32_gbs,q8_0_gbs,load_after_gbs" > "$out"
ld() { likwid-bench -t load_avx512 -w S0:1GB:2 2>&1 | awk '/MByte\/s/ {printf "%.1f", $2 / 1000}'; }
bt() { $hr decode-batch --dist zipf --batch 32 --len-min 128 --len-max 32768 --kv-dtype $1 --threads 2 --reps 7 2>&1 |
       grep '^total:' | sed -E 's/.* at ([0-9.]+) GB\/s.*/\1/'; }
for r in $(seq 1 "$rounds"); do
  a=$(ld); f=$(bt f32); q=$(bt q8_0); b=$(ld)
  echo "$r,$a,$f,$q,$b" >> "$out"
done
