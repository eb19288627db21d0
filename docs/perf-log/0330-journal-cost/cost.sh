#!/bin/bash
# cost.sh BIN N: N alternating rounds of the sweep with HEADROOM_JOURNAL_SYNC off, 1, 0.
B=$1; N=$2; D=${OUT:-/tmp/journal-cost}; rm -rf $D; mkdir -p $D
for i in $(seq 1 $N); do
  for m in off 1 0; do
    o=$D/$m-$i
    t0=$(date +%s.%N)
    HEADROOM_JOURNAL_SYNC=$m $B sweep $(dirname "$0")/cost.ini --out $o >/dev/null 2>&1 || echo "FAIL $o"
    t1=$(date +%s.%N)
    echo "$m $i $(echo "$t1 - $t0" | bc)" >> $D/wall.txt
  done
done
python3 - $D <<'PY'
import json, sys, glob, math, statistics as S
D = sys.argv[1]
wall = {}
for l in open(D + "/wall.txt"):
    m, i, t = l.split(); wall.setdefault(m, []).append(float(t))
med = {}
for f in glob.glob(D + "/*-*/results.json"):
    m = f.split("/")[-2].split("-")[0]
    for b in json.load(open(f))["benchmarks"]:
        if b.get("aggregate_name") == "median":
            med.setdefault(m, {}).setdefault(b["run_name"], []).append(b["real_time"])
for m in ["off", "1", "0"]:
    ratios = [S.median(med[m][k]) / S.median(med["off"][k]) for k in med["off"]]
    gm = math.exp(sum(map(math.log, ratios)) / len(ratios))
    print("sync=%-3s wall median %.3f s (runs %s)  geomean median-time ratio vs off %.4f  min %.3f max %.3f" % (
        m, S.median(wall[m]), " ".join("%.3f" % w for w in wall[m]), gm, min(ratios), max(ratios)))
PY
