#!/usr/bin/env bash
# bench.sh OLD NEW ROUNDS — interleaved fresh processes: per round every (binary, K/V type,
# threads, variant) point once, in an order rotated by the round; prints
# (KVS, TS: the types and thread counts, default "f32 q8_0" and "1 2")
# bin kv threads variant round median_s GBps (perf-log 0530; reused by 0570).
OLD=${1:?old binary}; NEW=${2:?new binary}; R=${3:-10}
pts=()
for b in old new; do for kv in ${KVS:-f32 q8_0}; do for t in ${TS:-1 2}; do
  for v in "plain:" "softcap50:--softcap 50" "alibi8:--alibi 8"; do pts+=("$b:$kv:$t:$v"); done
done; done; done
n=${#pts[@]}
for r in $(seq 1 "$R"); do
  for k in $(seq 0 $((n - 1))); do
    IFS=: read -r b kv t name flags <<<"${pts[$(( (k * 7 + r * 5) % n ))]}"
    [ "$b" = old ] && H=$OLD || H=$NEW
    line=$($H run --kernel decode --heads 32 --kv-heads 8 --seq 1 --seq-kv 16384 --d-head 128 --causal \
      --kv-dtype "$kv" $flags --threads "$t" --reps 7 --min-time 0.05 --warmup 0.1 --no-probe --no-wisdom --quiet --format csv | tail -1)
    echo "$b $kv $t $name $r $(echo "$line" | cut -d, -f17) $(echo "$line" | awk -F, '{print $35}')"
  done
done
