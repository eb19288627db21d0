#!/usr/bin/env bash
# sh_roofline.sh — `headroom roofline`: flag errors, a quick measurement, the ceilings file it writes.
SUITE=roofline
source "$(dirname "$0")/lib.sh"

expect help              0 'usage: headroom roofline'          -- $B roofline --help
expect threads-zero      2 '^headroom roofline: --threads: counts must be in \[1, 1024\]' -- $B roofline --quick --threads 0
expect threads-word      2 "--threads: expected N .*got 'abc'" -- $B roofline --quick --threads abc
expect threads-trailing  2 "--threads: expected N .*got '1,'"  -- $B roofline --quick --threads 1,
expect threads-backwards 2 '--threads: .*ranges increasing'     -- $B roofline --quick --threads 4-2
expect threads-too-many  2 '--threads: at most 64 thread counts' -- $B roofline --quick --threads 1-100
expect bad-format        2 '--format: expected one of table\|json' -- $B roofline --quick --format xml
expect bad-reps          2 '--reps: must be in \[1, 100\]'      -- $B roofline --quick --reps 0
expect bad-triad-bytes   2 '--triad-bytes: expected a number'   -- $B roofline --quick --triad-bytes lots
expect unknown-flag      2 "unknown option '--bogus'"           -- $B roofline --bogus
: > "$TMP/afile"
expect unwritable-out    2 "^headroom roofline: $TMP/afile.*(cannot|not a directory)" -- \
    $B roofline --quick --threads 1 --out "$TMP/afile/c.json"

# Every ceiling loop issues its instruction from registers only: chains kept in memory,
# or copied and stored each iteration, time the moves and stores (as both vpdpbusd loops
# once did). Read from the disassembly; the sanitizer build's code is not
# the measured one.
if [ "${HR_SANITIZE:-0}" = 1 ]; then
    skip probe-loops-in-registers "the sanitizer build's loops are not the ones measured"
elif command -v objdump >/dev/null && command -v python3 >/dev/null; then
    expect probe-loops-in-registers 0 '^[1-9][0-9]* loops, 0 with memory operands or moves$' -- \
        python3 "$(dirname "$0")/../scripts/probe-loops.py" "$B"
else
    skip probe-loops-in-registers "no objdump or python3"
fi

# A quick measurement: the table shows the build's ISA and the scalar loop, and says
# that --quick figures are not ceilings.
expect quick-table       0 '^ +1 +scalar +[0-9.]+ ' -- $B roofline --quick --threads 1
expect quick-not-ceiling 0 "NOT the machine's ceilings" -- $B roofline --quick --threads 1
expect quick-saves       0 "ceilings saved to $TMP/c/ceilings.json" -- \
    $B roofline --quick --threads 1-2 --out "$TMP/c/ceilings.json"
expect file-rows         0 '^2$' -- grep -c '"threads":' "$TMP/c/ceilings.json"
expect file-fields       0 '"triad_gbs":' -- cat "$TMP/c/ceilings.json"
expect file-quick-flag   0 '"quick":[[:space:]]*true' -- cat "$TMP/c/ceilings.json"
# DRAM's read-only bandwidth beside the triad, over the same arrays: in the file per row
# (after threads and the compute figures: the row's first load_gbs is DRAM's) and in the table.
expect file-dram-load    0 '^2$' -- python3 -c "import json; print(sum(r['load_gbs'] > 0 for r in json.load(open('$TMP/c/ceilings.json'))['ceilings']))"
expect table-dram-load   0 "^ +1 +DRAM +triad's arrays +[0-9.]+ +[0-9.]+$" -- $B roofline --quick --threads 1
expect quick-json        0 '"headroom_ceilings":[[:space:]]*1' -- $B roofline --quick --threads 1 --format json
# The dot-product roofs: measured where the CPU has the instruction (AMX: and the OS
# grants the tile state), else listed absent with the reason.
expect quick-bf16-roof   0 '^ +1 +avx512_bf16 +[0-9.]+ |^  avx512_bf16 +absent: the CPU has no AVX512-BF16' -- $B roofline --quick --threads 1
expect quick-int8-roof   0 '^ +1 +avx512_vnni +[0-9.]+ |^  avx512_vnni +absent: ' -- $B roofline --quick --threads 1
if grep -qw amx_bf16 /proc/cpuinfo 2>/dev/null && grep -qw amx_tile /proc/cpuinfo; then
    expect quick-amx-roof 0 '^ +1 +amx_bf16 +[0-9.]+ |^  amx_bf16 +absent: the OS ' -- $B roofline --quick --threads 1
    # Its counting where the roof was measured (an absent roof prints its reason instead).
    expect quick-amx-counting 0 'tdpbf16ps tiles: 16 x 16 x 32 bf16 multiply-adds = 16384 FLOPs|^  amx_bf16 +absent: the OS ' -- $B roofline --quick --threads 1
else
    expect quick-amx-absent 0 '^  amx_bf16 +absent: the CPU has no AMX-BF16' -- $B roofline --quick --threads 1
fi
expect quick-dot-counting 0 'vdpbf16ps zmm: 32 bf16 multiply-adds into fp32 = 64 FLOPs' -- $B roofline --quick --threads 1
expect file-dot-roofs    0 '"amx_bf16":[[:space:]]*\{' -- cat "$TMP/c/ceilings.json"
if grep -qw amx_bf16 /proc/cpuinfo 2>/dev/null && grep -qw amx_tile /proc/cpuinfo; then
    expect file-amx-figures 0 '"amx_bf16":[[:space:]]*[0-9]|"absent":[[:space:]]*"the OS ' -- cat "$TMP/c/ceilings.json"
else
    expect file-amx-absent 0 '"absent":[[:space:]]*"the CPU has no AMX' -- cat "$TMP/c/ceilings.json"
fi
if grep -qw avx512_bf16 /proc/cpuinfo 2>/dev/null; then
    expect file-bf16-figures 0 '"bf16_gflops":[[:space:]]*\{' -- cat "$TMP/c/ceilings.json"
fi
# --threads N means 1..N
expect threads-n-is-max  0 '^3$' -- bash -c "$B roofline --quick --oversubscribe --threads 3 --format json 2>/dev/null | grep -c '\"threads\":'"
# Cache-level roofs: L1, L2, L3 load and triad per thread count, in the table and the file.
expect file-cache-roofs  0 '"cache_roofs":[[:space:]]*\{' -- cat "$TMP/c/ceilings.json"
expect file-cache-levels 0 '^6$' -- bash -c "grep -cE '\"working_set_bytes\":[[:space:]]*[0-9]' '$TMP/c/ceilings.json'"
expect file-cache-load   0 '"load_gbs":[[:space:]]*[0-9]' -- cat "$TMP/c/ceilings.json"
expect file-cache-ws     0 '"working_set_bytes":[[:space:]]*[0-9]' -- cat "$TMP/c/ceilings.json"
expect quick-cache-table 0 '^ +1 +L2 +[0-9]+ +[0-9.]+ ' -- $B roofline --quick --threads 1
# More threads than online CPUs: refused without --oversubscribe, never saved with it.
NCPU=$(getconf _NPROCESSORS_ONLN)
OVER=$((NCPU + 1))
expect oversub-refused   2 'would measure shared cores.*--oversubscribe' -- $B roofline --quick --threads $OVER --out "$TMP/o/c.json"
expect oversub-not-saved 0 'more threads than CPUs, ceilings not saved' -- \
    $B roofline --quick --oversubscribe --threads $OVER,1 --out "$TMP/o/c.json"
expect oversub-no-file   1 '' -- test -e "$TMP/o/c.json"
# A results row with ceilings that hold cache roofs says which roof binds it: a tiny
# shape's working set (Q, K, V, O + workspace) fits a cache level.
MACH=$($B --version | awk '$1 == "machine" {print $2; exit}')
$B roofline --quick --threads 1 --out "$TMP/res/$MACH/ceilings.json" >/dev/null 2>&1
expect row-bound-level   0 '"bound_level":[[:space:]]*"(L1|L2|L3|DRAM|compute)"' -- \
    env HEADROOM_RESULTS="$TMP/res" $B run --kernel flash --threads 1 --heads 1 --seq 64 --d-head 16 --reps 2 --min-time 0.001 --warmup 0 --format json
expect row-level-bound   0 '"attainable_level_gflops":[[:space:]]*[0-9]' -- \
    env HEADROOM_RESULTS="$TMP/res" $B run --kernel flash --threads 1 --heads 1 --seq 64 --d-head 16 --reps 2 --min-time 0.001 --warmup 0 --format json
expect row-csv-bound     0 ',(L1|L2|L3|DRAM|compute),,,0,0,0,0$' -- \
    env HEADROOM_RESULTS="$TMP/res" $B run --kernel flash --threads 1 --heads 1 --seq 64 --d-head 16 --reps 2 --min-time 0.001 --warmup 0 --format csv
# The bandwidth curve: every measured thread count has one, the levels read off it sit
# beside the reported ones, and the rows say their level was measured.
CC="$TMP/c/ceilings.json"
expect file-curve        0 '^2$' -- bash -c "grep -c '\"bandwidth_curve\":' '$CC'"
expect file-curve-points 0 '' -- python3 -c "
import json, sys
d = json.load(open('$CC'))
for r in d['ceilings']:
    c = r['bandwidth_curve']
    n = len(c['working_set_bytes'])
    assert n >= 10 and len(c['load_gbs']) == n == len(c['triad_gbs']), n
    assert all(b > a for a, b in zip(c['working_set_bytes'], c['working_set_bytes'][1:]))
    assert c['working_set_bytes'][-1] >= 64 * 2**20
    for name, lv in r['measured_levels'].items():
        assert name in ('L1', 'L2', 'L3') and lv['size_bytes'] > 0 and lv['triad_gbs'] > 0, lv
assert d['levels_source'] in ('measured', 'topology')
assert set(d['reported_levels']) >= {'L1', 'L2', 'L3'}
"
expect quick-curve-table 0 'cache levels off the bandwidth curve' -- $B roofline --quick --threads 1
expect row-level-measured 0 '"level_measured":[[:space:]]*[01]' -- \
    env HEADROOM_RESULTS="$TMP/res" $B run --kernel flash --threads 1 --heads 1 --seq 64 --d-head 16 --reps 2 --min-time 0.001 --warmup 0 --format json
# An old file (no curve) reads as before, with one notice; its rows' levels come from the
# topology. A malformed curve is refused with the key named.
mkdir -p "$TMP/old/$MACH"
python3 -c "
import json
d = json.load(open('$CC'))
for k in ('levels_source', 'bandwidth_curve_counting', 'reported_levels', 'level_note'): d.pop(k, None)
for r in d['ceilings']:
    for k in ('bandwidth_curve', 'measured_levels', 'beyond_gbs'): r.pop(k, None)
json.dump(d, open('$TMP/old/$MACH/ceilings.json', 'w'))
d = json.load(open('$CC'))
d['ceilings'][0]['bandwidth_curve']['triad_gbs'] = [1]
json.dump(d, open('$TMP/bad-curve.json', 'w'))
"
expect old-file-notice   0 '^1$' -- bash -c "env HEADROOM_RESULTS='$TMP/old' $B run --kernel flash --threads 1 --heads 1 --seq 64 --d-head 16 --reps 2 --min-time 0.001 --warmup 0 --format json 2>&1 | grep -c 'has no bandwidth curve'"
expect old-file-topology 0 '"level_measured":[[:space:]]*0' -- \
    env HEADROOM_RESULTS="$TMP/old" $B run --kernel flash --threads 1 --heads 1 --seq 64 --d-head 16 --reps 2 --min-time 0.001 --warmup 0 --format json
expect bad-curve         2 'bandwidth_curve.triad_gbs must be an array' -- \
    $B plot "$TMP/c" --ceilings "$TMP/bad-curve.json"
# summary.md and report say where the levels behind bound_level came from.
sweep_config "$TMP/lv.ini" "kernels=flash" seq=64 reps=2
env HEADROOM_RESULTS="$TMP/res" $B sweep "$TMP/lv.ini" --out "$TMP/sw-new" >/dev/null 2>&1
env HEADROOM_RESULTS="$TMP/old" $B sweep "$TMP/lv.ini" --out "$TMP/sw-old" >/dev/null 2>&1
# The sanitizer build's loads are not the measured ones: its --quick curve may have no knee.
if [ "${HR_SANITIZE:-0}" = 1 ]; then
    skip summary-levels-measured "the sanitizer build's bandwidth curve is not the measured one"
    skip report-levels-measured "the sanitizer build's bandwidth curve is not the measured one"
else
    expect summary-levels-measured 0 'Cache levels behind bound_level: [1-9][0-9]* rows? measured off the bandwidth curve, 0 taken' -- \
        cat "$TMP/sw-new/summary.md"
    expect report-levels-measured 0 'Cache levels behind `bound_level`: .* measured off the bandwidth curve' -- \
        $B report "$TMP/sw-new" --out "$TMP/rep-new" --no-charts
fi
expect summary-levels-topology 0 'Cache levels behind bound_level: 0 rows measured off the bandwidth curve, [1-9]' -- \
    cat "$TMP/sw-old/summary.md"
expect report-levels-topology 0 'Cache levels behind `bound_level`: .* taken from the topology' -- \
    $B report "$TMP/sw-old" --out "$TMP/rep-old" --no-charts
finish
