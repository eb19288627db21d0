#!/usr/bin/env bash
# bench.sh OLD NEW OUT ROUNDS: 0470's runs for both binaries, interleaved, a fresh process each.
old=$1 new=$2 out=$3 rounds=${4:-2}
echo "round,bin,type,threads,P,median_s,cv" > "$out"
for r in $(seq 1 "$rounds"); do
  for kt in f32 q8_0; do for T in 1 2; do for P in 0 16 64 256; do for bin in old new; do
    b=$old; [ $bin = new ] && b=$new
    pg=(); [ $P -gt 0 ] && pg=(--page-size $P)
    line=$($b run --kernel decode --heads 32 --kv-heads 8 --seq 1 --seq-kv 16384 --d-head 128 --kv-dtype $kt "${pg[@]}" \
      --threads $T --min-time 0.1 --reps 7 --warmup 0.1 --no-probe --format csv --quiet 2>/dev/null | tail -1)

    echo "$r,$bin,$kt,$T,$P,$(echo "$line" | cut -d, -f17),$(echo "$line" | cut -d, -f21)" >> "$out"
  done; done; done; done
done
