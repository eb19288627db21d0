#!/bin/bash
# all.sh [DIR]: issue 62's targets in one pass, from the repository root, writing into DIR:
# paged against contiguous decode (ilv.sh of 0600, 7 rounds, fp32 and q8_0, 1 and 2 threads),
# the Zipf batch of 32 beside the read-only stream (pairs.sh of 0560, 6 rounds), one
# roofline and the batch's level line against it, and the flash variants (var.sh, 5 rounds).
D=${1:-docs/perf-log/0610-issue62-targets-zen4-intel}
for kt in f32 q8_0; do for T in 1 2; do
  echo "== $kt T$T" >> $D/paged.txt
  bash docs/perf-log/0600-paged-decode-gap/ilv.sh 7 $kt $T -- "cont::--seed 1" "p16::--page-size 16" "p64::--page-size 64" "p256::--page-size 256" >> $D/paged.txt 2>&1
done; done
bash docs/perf-log/0560-ragged-read-only-roof/pairs.sh ./headroom $D/pairs.csv 6
./headroom roofline --threads 1-2 --out $D/ceilings.json > $D/roofline.txt 2>&1
for kt in f32 q8_0; do ./headroom decode-batch --dist zipf --batch 32 --len-min 128 --len-max 32768 --kv-dtype $kt --threads 2 --reps 7 --ceilings $D/ceilings.json > $D/batch-$kt.txt 2>&1; done
bash "$(dirname "$0")/var.sh" 5 $D/var.csv
