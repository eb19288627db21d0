#!/usr/bin/env bash
# bench.sh BASE EXP OUT ROUNDS: fp32 decode at H32/8 d128 L16384, 1 and 2 threads: the
# contiguous cache at its default block and at 16 and 64 keys a block, the paged cache at
# P 16 and 64 (BASE), and P 16 with the next page's K and V prefetched a share per item
# (EXP: BASE with page-ahead.diff; HR_PGPF=1, HR_PGPF_LOC=1 prefetcht2 / 3 prefetcht0).
# A fresh process each, every case once a round, ROUNDS rounds.
base=$1 exp=$2 out=$3 rounds=${4:-6}
cases=("cont|base||" "cont-b16|base||--block-kv 16" "cont-b64|base||--block-kv 64" "p16|base||--page-size 16"
       "p64|base||--page-size 64" "p16-ahead-t2|exp|HR_PGPF=1 HR_PGPF_LOC=1|--page-size 16"
       "p16-ahead-t0|exp|HR_PGPF=1 HR_PGPF_LOC=3|--page-size 16")
echo "round,threads,case,median_s,cv" > "$out"
for r in $(seq 1 "$rounds"); do
  for T in 1 2; do for c in "${cases[@]}"; do
    IFS='|' read -r name bin envs args <<< "$c"
    b=$base; [ "$bin" = exp ] && b=$exp
    line=$(env $envs "$b" run --kernel decode --heads 32 --kv-heads 8 --seq 1 --seq-kv 16384 --d-head 128 $args \
      --threads $T --min-time 0.1 --reps 7 --warmup 0.1 --no-probe --format csv --quiet 2>/dev/null | tail -1)
    echo "$r,$T,$name,$(echo "$line" | cut -d, -f17),$(echo "$line" | cut -d, -f21)" >> "$out"
  done; done
done
