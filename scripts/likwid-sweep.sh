#!/usr/bin/env bash
# likwid-sweep.sh — run a sweep under likwid-perfctr (Marker API) and merge the counters into the results.
#
# usage: scripts/likwid-sweep.sh CONFIG [OUTDIR]
#   CONFIG   a sweep config (configs/*.ini)
#   OUTDIR   results directory (default results/<machine>/likwid-<stamp>)
# env:
#   HR_BIN         a headroom built with make LIKWID=1 (default build/likwid/headroom,
#                  built here when missing: make LIKWID=1 BUILDDIR=build/likwid)
#   LIKWID_GROUPS  performance groups, one sweep each (default "FLOPS_SP MEM L2 L3")
#   LIKWID_CPUS    cores to count on, -C list (default 0-(nproc-1)); pin the threads there
#
# What it does: one plain sweep into OUTDIR (results.json, results.csv: the timings),
# then, for every group, the same sweep under likwid-perfctr -C CPUS -m -g GROUP
# (counters are per core, so OpenBLAS's own threads are counted too). Each kernel call
# is a Marker region named like its result row (flash/B1/H16/...), so the counters merge
# by name into OUTDIR/likwid.csv next to results.csv:
#   name,group,metric,sum,min,max,avg     (statistics over the counted cores)
# A region spans the whole timed call (warm-up and calibration included): use the
# counters' own rates (MFLOP/s, MBytes/s), not headroom's time.
# Where hardware counters cannot be read (a VM without PMU passthrough, no perf/MSR
# access, a CPU likwid does not know), it says so in one line and runs the plain sweep.
set -euo pipefail
cd "$(dirname "$0")/.."

if [ $# -lt 1 ] || [ "$1" = "-h" ] || [ "$1" = "--help" ]; then
    sed -n '2,26p' "$0" | sed 's/^# \{0,1\}//'
    [ $# -ge 1 ] && exit 0 || exit 2
fi
config=$1
[ -f "$config" ] || { echo "likwid-sweep: $config: no such config" >&2; exit 2; }
groups=${LIKWID_GROUPS:-FLOPS_SP MEM L2 L3}
cpus=${LIKWID_CPUS:-0-$(($(nproc) - 1))}
bin=${HR_BIN:-build/likwid/headroom}
if [ ! -x "$bin" ]; then
    make -s LIKWID=1 BUILDDIR=build/likwid >&2
    bin=build/likwid/headroom
fi
machine=$("$bin" run --kernel naive --seq 8 --heads 1 --d-head 8 --reps 1 --min-time 0 --warmup 0 \
    --format json 2>/dev/null | python3 -c 'import json,sys; print(json.load(sys.stdin)["context"]["machine"])')
out=${2:-${HEADROOM_RESULTS:-results}/${machine}/likwid-$(date +%Y%m%d-%H%M%S)}
mkdir -p "$out"

# The timings: a plain sweep (no counting overhead in these numbers).
"$bin" sweep "$config" --out "$out"

# Can counters be read here? One short measurement of the first group tells.
first=${groups%% *}
if ! command -v likwid-perfctr >/dev/null; then
    echo "likwid-sweep: likwid-perfctr not installed; results without counters in $out"
    exit 0
fi
if ! ldd "$bin" 2>/dev/null | grep -q liblikwid; then
    echo "likwid-sweep: $bin was not built with make LIKWID=1 (no Marker regions); results without counters in $out"
    exit 0
fi
probe=$(likwid-perfctr -C 0 -g "$first" true 2>&1) && ok=1 || ok=0
if [ $ok = 0 ] || printf '%s' "$probe" | grep -qiE 'no groups|not supported|cannot|error|denied|permission|unknown'; then
    why=$(printf '%s\n' "$probe" | grep -iE 'no groups|not supported|cannot|error|denied|permission|unknown' | head -n 1)
    echo "likwid-sweep: hardware counters not readable here (${why:-likwid-perfctr failed}); results without counters in $out"
    exit 0
fi

for g in $groups; do
    echo "likwid-sweep: group $g" >&2
    likwid-perfctr -C "$cpus" -m -g "$g" -O -o "$out/likwid_$g.csv" \
        "$bin" sweep "$config" --out "$out/likwid_run_$g" >/dev/null
done

# Merge the per-group CSVs into OUTDIR/likwid.csv (scripts/likwid-merge.py; tested on
# fixtures in the format likwid.lua's printOutput writes).
python3 scripts/likwid-merge.py "$out" $groups
