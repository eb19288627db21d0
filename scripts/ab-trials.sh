#!/usr/bin/env bash
# ab-trials.sh — how often does `headroom ab` get a whole config right? N A/A runs (the same
# binary on both sides: every non-zero exit is a false alarm) and N runs against a planted
# slowdown (the new side runs with HEADROOM_PLANT_DELAY: every 0 is a miss).
#
# usage: scripts/ab-trials.sh [--config FILE] [--reps R] [--rounds K] [--min-time S]
#                             [--plant F] [--bin PATH] [--keep DIR] [N]
#   N            runs per set (default 20)
#   --config     the config (default configs/ci.ini)
#   --reps       pairs per point and round (default: ab's, 3)
#   --rounds     fresh worker pairs per run (default: ab's, 12)
#   --min-time   seconds per repetition (default 0.02, the docs/how-to/ci-gate.md recipe)
#   --plant      the planted slowdown (default 0.05 = 5%)
#   --keep DIR   keep every report (default: a temporary directory, removed at the end)
# Each run is bounded by `timeout` (600 s); prints a line per run and the counts per set.
set -u
cd "$(dirname "$0")/.."
N=20 CONFIG=configs/ci.ini REPS="" ROUNDS="" MIN_TIME=0.02 PLANT=0.05 KEEP="" BIN=${HR_BIN:-./headroom}
while [ $# -gt 0 ]; do
    case $1 in
    --config) CONFIG=${2:?}; shift 2 ;;
    --reps) REPS=${2:?}; shift 2 ;;
    --rounds) ROUNDS=${2:?}; shift 2 ;;
    --min-time) MIN_TIME=${2:?}; shift 2 ;;
    --plant) PLANT=${2:?}; shift 2 ;;
    --keep) KEEP=${2:?}; shift 2 ;;
    --bin) BIN=${2:?}; shift 2 ;;
    -h|--help) sed -n '2,/^set -u/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
    -*) echo "ab-trials.sh: unknown option $1" >&2; exit 2 ;;
    *) N=$1; shift ;;
    esac
done
case $N in ''|*[!0-9]*) echo "ab-trials.sh: N must be a positive integer" >&2; exit 2 ;; esac
BIN=$(readlink -f "$BIN")
[ -x "$BIN" ] || { echo "ab-trials.sh: $BIN is not executable" >&2; exit 2; }
dir=${KEEP:-$(mktemp -d)}
mkdir -p "$dir"
[ -n "$KEEP" ] || trap 'rm -rf "$dir"' EXIT
printf '#!/bin/sh\nHEADROOM_PLANT_DELAY=%s exec %s "$@"\n' "$PLANT" "$BIN" > "$dir/planted"
chmod +x "$dir/planted"
args=(--min-time "$MIN_TIME" --format json)
[ -n "$REPS" ] && args+=(--reps "$REPS")
[ -n "$ROUNDS" ] && args+=(--rounds "$ROUNDS")
echo "ab-trials: $N runs per set, $CONFIG, ${ROUNDS:-12} round(s) of ${REPS:-3} pairs, min-time $MIN_TIME, planted $PLANT; reports in $dir"
declare -A count
for set in aa planted; do
    new=$BIN
    [ $set = planted ] && new=$dir/planted
    for i in $(seq 1 "$N"); do
        timeout 600 "$BIN" ab "$BIN" "$new" "$CONFIG" "${args[@]}" > "$dir/$set$i.json" 2> "$dir/$set$i.log"
        rc=$?
        count[$set.$rc]=$(( ${count[$set.$rc]:-0} + 1 ))
        summary=$(python3 -c "
import json,sys
d=json.load(open(sys.argv[1])); c=d.get('counts',{})
r=[x['delta_pct'] for x in d['rows']]
print('R%s I%s median delta %+.2f%%' % (c.get('regression','?'), c.get('improvement','?'), sorted(r)[len(r)//2]))
" "$dir/$set$i.json" 2>/dev/null || echo "(no report)")
        echo "$set $i: exit $rc $summary"
    done
done
printf '%-8s %6s %6s %6s\n' set 0 1 other
for set in aa planted; do
    other=$(( N - ${count[$set.0]:-0} - ${count[$set.1]:-0} ))
    printf '%-8s %6d %6d %6d\n' $set "${count[$set.0]:-0}" "${count[$set.1]:-0}" "$other"
done
