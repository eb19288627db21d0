#!/usr/bin/env bash
# interleaved: rounds x variants in rotating order; prints kv variant round time_s GBps
H=${1:-./headroom}; R=${2:-5}; kv=${3:-f32}
vars=("plain:" "softcap50:--softcap 50" "alibi8:--alibi 8" "window4096:--window 4096")
for r in $(seq 1 $R); do
    for k in 0 1 2 3; do
      i=$(( (k + r) % 4 )); name=${vars[$i]%%:*}; flags=${vars[$i]#*:}
      line=$($H run --kernel decode --heads 32 --kv-heads 8 --seq 1 --seq-kv 16384 --d-head 128 --causal \
        --kv-dtype $kv $flags --threads 2 --reps 7 --min-time 0.05 --warmup 0.1 --no-probe --no-wisdom --quiet --format csv | tail -1)
      t=$(echo "$line" | cut -d, -f17); g=$(echo "$line" | awk -F, '{print $35}')
      echo "$kv $name $r $t $g"
    done
done
