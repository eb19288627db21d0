#!/usr/bin/env bash
# sh_softmax.sh — the softmax ceilings `headroom roofline` writes, a run's attainable rate (min of matmul, softmax, memory) and bound_by, an old ceilings file's notice.
SUITE=softmax
source "$(dirname "$0")/lib.sh"

MACH=$($B --version | awk '$1 == "machine" {print $2; exit}')
CC="$TMP/res/$MACH/ceilings.json"
$B roofline --quick --threads 1-2 --out "$CC" >"$TMP/roof.txt" 2>&1
# The table lists each measured step and each absent one with its reason.
expect table-flash       0 '^ +1 +flash_'"$($B --version | awk '$1 == "isa" {print $2; exit}')"' +[0-9.]+ ' -- cat "$TMP/roof.txt"
expect table-fp16-absent 0 '^  avx512_fp16 +absent: no kernel path runs AVX512-FP16' -- cat "$TMP/roof.txt"
if grep -qw amx_bf16 /proc/cpuinfo 2>/dev/null; then
    skip table-amx-absent "this CPU has AMX"
else
    # The reason names the CPU, or the missing avx512 level of a fixed build (ISA=avx2).
    expect table-amx-absent 0 '^  amx +absent: (the CPU has no AMX|this binary has no avx512 level)' -- cat "$TMP/roof.txt"
fi
# The file: every step named with its code, figures per thread count for the measured ones.
expect file-softmax      0 '' -- python3 -c "
import json
d = json.load(open('$CC'))
h = d['softmax_ceilings']
assert set(h) >= {'flash_avx512', 'flash_avx2', 'decode_avx512', 'bf16dot', 'amx', 'avx512_fp16', 'counting'}, h.keys()
assert h['avx512_fp16']['measured'] is False and h['avx512_fp16']['absent']
for r in d['ceilings']:
    s = r['softmax_gscores']
    for k, v in h.items():
        if k == 'counting': continue
        assert (k in s) == v['measured'], k
        assert k not in s or (s[k] > 0 and r['softmax_gscores_worst'][k] <= s[k]), k
assert any(v['measured'] for k, v in h.items() if k.startswith('flash_'))
"
# A run's rows: attainable_path_gflops, pct_of_attainable, bound_by and the step.
RUN="$B run --kernel flash --threads 1 --heads 1 --seq 64 --d-head 16 --reps 2 --min-time 0.001 --warmup 0 --format json"
env HEADROOM_RESULTS="$TMP/res" $RUN >"$TMP/r.json" 2>/dev/null
expect row-bound-by      0 '"bound_by":[[:space:]]*"(matmul|softmax|memory)"' -- cat "$TMP/r.json"
expect row-attainable    0 '' -- python3 -c "
import json
b = [x for x in json.load(open('$TMP/r.json'))['benchmarks'] if x.get('aggregate_name') == 'median'][0]
att = min(b['ceiling_gflops'], b['softmax_gflops'], b['AI'] * b['level_gbs'])
assert abs(b['attainable_path_gflops'] - att) <= 1e-9 * att, (b['attainable_path_gflops'], att)
assert abs(b['softmax_gflops'] - b['softmax_gscores'] * 4 * 16) <= 1e-9 * b['softmax_gflops']
assert abs(b['pct_of_attainable'] - b['GFLOPS'] / att * 100) < 1e-6 * b['pct_of_attainable']
assert b['softmax_step'].startswith('flash_')
"
expect decode-step       0 '"softmax_step":[[:space:]]*"decode_' -- \
    env HEADROOM_RESULTS="$TMP/res" $B run --kernel decode --threads 1 --heads 2 --seq 1 --seq-kv 256 --reps 2 --min-time 0.001 --warmup 0 --format json
# An old ceilings file (no softmax ceilings): one notice, rows without an attainable figure.
mkdir -p "$TMP/old/$MACH"
python3 -c "
import json
d = json.load(open('$CC'))
d.pop('softmax_ceilings')
for r in d['ceilings']:
    for k in ('softmax_gscores', 'softmax_gscores_median', 'softmax_gscores_worst'): r.pop(k)
json.dump(d, open('$TMP/old/$MACH/ceilings.json', 'w'))
"
env HEADROOM_RESULTS="$TMP/old" $RUN >"$TMP/old.json" 2>"$TMP/old.err"
expect old-notice        0 '^1$' -- grep -c 'has no softmax ceilings' "$TMP/old.err"
expect old-no-attainable 1 '' -- grep -qE '"(attainable_path_gflops|bound_by|pct_of_attainable)"' "$TMP/old.json"
expect old-roof-kept     0 '"attainable_gflops":[[:space:]]*[0-9]' -- cat "$TMP/old.json"
# A bad figure is refused with the key named.
python3 -c "
import json
d = json.load(open('$CC'))
d['ceilings'][0]['softmax_gscores']['flash_avx2'] = 'fast'
json.dump(d, open('$TMP/bad.json', 'w'))
"
expect bad-figure        2 'softmax_gscores.flash_avx2 is not a number' -- $B plot "$TMP/res" --ceilings "$TMP/bad.json"
# summary.md and report show bound_by and the fraction of attainable.
sweep_config "$TMP/sm.ini" "kernels=flash" seq=64 reps=2
env HEADROOM_RESULTS="$TMP/res" $B sweep "$TMP/sm.ini" --out "$TMP/sw" >/dev/null 2>&1
expect summary-columns   0 '\| bound by \| % of attainable \|' -- cat "$TMP/sw/summary.md"
expect report-attainable 0 '% of attainable, (matmul|softmax|memory)\)' -- \
    bash -c "$B report '$TMP/sw' --out '$TMP/rep' --no-charts >/dev/null && cat '$TMP/rep/report.md'"
# compare's tables: the fraction of attainable on both sides and the new row's bound_by;
# files without it read as before (no column).
expect compare-text      0 '% of attainable \(base -> new, bound by\)' -- $B compare "$TMP/sw" "$TMP/sw" --threshold 1000
expect compare-md        0 '\| [0-9.]+ -> [0-9.]+ \| (matmul|softmax|memory) \|$' -- $B compare "$TMP/sw" "$TMP/sw" --threshold 1000 --format markdown
env HEADROOM_RESULTS="$TMP/old" $B sweep "$TMP/sm.ini" --out "$TMP/sw-old" >/dev/null 2>&1
expect compare-old       1 '' -- bash -c "$B compare '$TMP/sw-old' '$TMP/sw-old' --threshold 1000 | grep -q 'of attainable'"
# A forced path the CPU lacks: one line, exit 2, as before.
if grep -qw amx_tile /proc/cpuinfo 2>/dev/null; then
    skip forced-amx "this CPU has AMX"
else
    expect forced-amx    2 'HEADROOM_FLASH_PATH=amx' -- env HEADROOM_FLASH_PATH=amx $B run --kernel flash --dtype bf16 --threads 1 --heads 1 --seq 64 --reps 1 --min-time 0.001 --warmup 0
fi
finish
