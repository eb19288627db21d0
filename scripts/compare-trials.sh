#!/usr/bin/env bash
# compare-trials.sh — how often does `headroom compare` get it right? N trials of two
# identical runs (false alarms) and N trials of a run against one with a planted 10%
# slowdown (detections), judged on raw time and on the normalized metric.
#
# usage: scripts/compare-trials.sh [N (default 20)] [extra headroom run flags...]
# The planted slowdown is HEADROOM_PLANT_DELAY=0.10 (test only: a busy-wait of 10% of
# each call's own time inside the timed call; see docs/measurement.md).
set -u
cd "$(dirname "$0")/.."
N=${1:-20}
shift || true
BIN=${HR_BIN:-./headroom}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
run() {
    "$BIN" run --kernel flash --heads 8 --seq 512 --d-head 64 --threads 1 --reps 15 \
        --min-time 0.02 --no-wisdom --format json "$@" 2>/dev/null
}
declare -A fa=([time]=0 [normalized]=0) det=([time]=0 [normalized]=0)
for i in $(seq 1 "$N"); do
    run "$@" > "$tmp/base.json"
    run "$@" > "$tmp/same.json"
    HEADROOM_PLANT_DELAY=0.10 run "$@" > "$tmp/slow.json"
    for m in time normalized; do
        "$BIN" compare "$tmp/base.json" "$tmp/same.json" --metric $m >/dev/null 2>&1
        [ $? = 1 ] && fa[$m]=$((fa[$m] + 1))
        "$BIN" compare "$tmp/base.json" "$tmp/slow.json" --metric $m >/dev/null 2>&1
        [ $? = 1 ] && det[$m]=$((det[$m] + 1))
    done
done
for m in time normalized; do
    echo "metric $m: false alarms ${fa[$m]}/$N on identical runs, planted 10% slowdown detected ${det[$m]}/$N"
done
