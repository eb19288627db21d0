#!/bin/bash
# the paged sweep (run rows) and the decode-loop runs, one exclusive section
cd /work/wt-loop
B=./headroom
O=/tmp/loop-meas
rm -f $O/results.csv
for kt in f32 q8_0; do
  for P in 0 16 64 256 1024; do
    pp=; [ $P != 0 ] && pp="--page-size $P"
    $B run --kernel decode --heads 32 --kv-heads 8 --seq 1 --seq-kv 4096 --d-head 128 --causal --kv-dtype $kt --threads 2 $pp --format csv --quiet > $O/row.csv 2>>$O/err.log
    if [ -s $O/results.csv ]; then tail -n +2 $O/row.csv >> $O/results.csv; else cp $O/row.csv $O/results.csv; fi
  done
done
for kt in f32 q8_0; do
  for P in 0 16 256; do
    pp=; [ $P != 0 ] && pp="--page-size $P"
    $B decode-loop --heads 32 --kv-heads 8 --d-head 128 --layers 4 --prompt 4096 --tokens 256 --kv-dtype $kt --threads 2 $pp --rows 4 > $O/loop-$kt-p$P.txt 2>&1
    $B decode-loop --max-batch 8 --requests 24 --heads 32 --kv-heads 8 --d-head 128 --len-max 4096 --out-max 128 --kv-dtype $kt --threads 2 $pp > $O/cont-$kt-p$P.txt 2>&1
  done
done
