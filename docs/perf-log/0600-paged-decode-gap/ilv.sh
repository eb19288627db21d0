#!/bin/bash
# ilv.sh ROUNDS KT T -- label:ENV:ARGS ...   interleaved, prints median ratio to first
rounds=$1 kt=$2 T=$3; shift 4
declare -A res
for r in $(seq 1 $rounds); do
  for spec in "$@"; do
    lab=${spec%%:*}; rest=${spec#*:}; envs=${rest%%:*}; args=${rest#*:}
    bin=${BIN:-./headroom}
    [ "${envs#/}" != "$envs" ] && bin=$envs && envs=X=1
    t=$(env ${envs//,/ } $bin run --kernel decode --heads 32 --kv-heads 8 --seq 1 --seq-kv 16384 --d-head 128 --kv-dtype $kt $args --threads $T --min-time 0.1 --reps 5 --warmup 0.05 --no-probe --format csv --quiet 2>/dev/null | tail -1 | cut -d, -f17)
    res[$lab]="${res[$lab]} $t"
  done
done
for spec in "$@"; do lab=${spec%%:*}; echo "$lab ${res[$lab]}"; done | python3 -c '
import sys,statistics as st
rows=[l.split() for l in sys.stdin]
base=[float(x) for x in rows[0][1:]]
for r in rows:
    v=[float(x) for x in r[1:]]
    print(f"{r[0]:10s} median {st.median(v)*1e3:7.3f} ms  ratio-to-first median {st.median([a/b for a,b in zip(v,base)]):.3f}  min {min(v)*1e3:.3f}")
'
