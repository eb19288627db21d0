#!/usr/bin/env bash
# bench.sh HEADROOM PLUGIN ROUNDS: onednn_sdpa and flash, plain and --alibi 8, interleaved fresh
# processes, on an MHA prefill (H16 N2048 d128 causal) and a GQA decode row (H32/8 L16384).
hr=$1 plug=$2 rounds=${3:-3}
echo "round,kernel,shape,variant,median_s"
for r in $(seq 1 "$rounds"); do
  for shape in "prefill:--heads 16 --seq 2048 --d-head 128 --causal" "decode:--heads 32 --kv-heads 8 --seq 1 --seq-kv 16384 --d-head 128 --causal"; do
    for k in onednn_sdpa flash decode; do for v in plain alibi8; do
      name=${shape%%:*}; args=${shape#*:}
      [ $k = decode ] && [ $name = prefill ] && continue
      [ $k = flash ] && [ $name = decode ] && continue
      extra=(); [ $v = alibi8 ] && extra=(--alibi 8)
      t=$($hr run --plugin "$plug" --kernel $k $args "${extra[@]}" --threads 2 --min-time 0.2 --reps 5 --warmup 0.1 \
        --no-probe --format csv --quiet 2>/dev/null | tail -1 | cut -d, -f17)
      echo "$r,$k,$name,$v,$t"
    done; done
  done
done
