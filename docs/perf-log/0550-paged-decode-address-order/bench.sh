#!/usr/bin/env bash
# bench.sh OLD NEW OUT ROUNDS: decode at H32/8 d128 L16384 for f32 and bf16 caches (KTS), 1 and 2
# threads, contiguous and P 16, 64, 256, the old and the new binary one after the other
# (a fresh process each), ROUNDS rounds interleaved.
old=$1 new=$2 out=$3 rounds=${4:-3}
echo "round,bin,type,threads,P,median_s,cv" > "$out"
for r in $(seq 1 "$rounds"); do
  for kt in ${KTS:-f32 bf16}; do for T in 1 2; do for P in 0 16 64 256; do for bin in old new; do
    b=$old; [ $bin = new ] && b=$new
    pg=(); [ $P -gt 0 ] && pg=(--page-size $P)
    line=$($b run --kernel decode --heads 32 --kv-heads 8 --seq 1 --seq-kv 16384 --d-head 128 --kv-dtype $kt "${pg[@]}" \
      --threads $T --min-time 0.1 --reps 7 --warmup 0.1 --no-probe --format csv --quiet 2>/dev/null | tail -1)
    echo "$r,$bin,$kt,$T,$P,$(echo "$line" | cut -d, -f17),$(echo "$line" | cut -d, -f21)" >> "$out"
  done; done; done; done
done
