#!/usr/bin/env bash
# sh_compare.sh — headroom compare's contract: exit 0/1/2/3, the regressed row named, the
# three formats, warnings, the machine's shift, and one-line errors naming the file or flag.
SUITE=compare
source "$(dirname "$0")/lib.sh"
F=tests/fixtures/compare
SLOW='flash/B1/H16/G16/N2048/M2048/d64/causal/bhnd/T2'

expect help             0 'usage: headroom compare BASE NEW'       -- $B compare --help
expect help-exit3       0 '3 cannot separate machine from code'    -- $B compare --help
expect help-correction  0 'holm \(family-wise error\), bh'          -- $B compare --help
expect identical        0 'result: 0 regressions, 0 improvements, 5 same' -- $B compare $F/base.json $F/same.json
expect slowdown         1 "$SLOW +[0-9.]+ ms +[0-9.]+ ms +\+10\.00% +\+10\.00% +0\.000206 +9/9 +REGRESSION" \
                           -- $B compare $F/base.json $F/slow.json
expect slowdown-geomean 1 'geomean \(5 rows\) +\+1\.92%'          -- $B compare $F/base.json $F/slow.json
expect improvement      0 'blocked/.* -15\.00% .* IMPROVEMENT'     -- $B compare $F/base.json $F/fast.json
expect noise            0 'naive/.* \+6\.00% +\+6\.00% +0\.807 +9/9 +noise' -- $B compare $F/base.json $F/noisy.json
expect holm-header      0 "alpha 0\.05, Holm's correction \(family-wise error\) over 5 tested rows" \
                           -- $B compare $F/base.json $F/noisy.json
expect few-rows-note    0 'shift: 5 rows, too few to estimate a common shift \(needs 6\)' \
                           -- $B compare $F/base.json $F/noisy.json
expect uncorrected      1 "$SLOW .* \+10\.00% +4\.11e-05 +9/9 +REGRESSION" \
                           -- $B compare $F/base.json $F/slow.json --correction none
expect uncorrected-head 1 ' p +reps +verdict'                      -- $B compare $F/base.json $F/slow.json --correction none
expect bh               1 "$SLOW .* 0\.000206 +9/9 +REGRESSION"  -- $B compare $F/base.json $F/slow.json --correction bh
expect bh-head          1 ' p \(bh\) +reps +verdict'                -- $B compare $F/base.json $F/slow.json --correction bh
expect bh-header        1 'Benjamini-Hochberg correction \(false discovery rate\)' \
                           -- $B compare $F/base.json $F/slow.json --correction bh
expect threshold-10     0 '0 regressions'                          -- $B compare $F/base.json $F/slow.json --threshold 10.5
expect alpha-strict     0 '0\.000206 .* noise'                     -- $B compare $F/base.json $F/slow.json --alpha 1e-4
expect ms-units         0 '5 same'                                 -- $B compare $F/base.json $F/ms.json
expect filter           0 '\(1 compared\)'                         -- $B compare $F/base.json $F/slow.json --filter '^naive/'
expect filter-hit       1 '\(1 compared\)'                         -- $B compare $F/base.json $F/slow.json --filter 'causal/bhnd'
expect normalized       1 "$SLOW.* -9\.09% .*REGRESSION"          -- $B compare $F/base.json $F/slow.json --metric normalized
expect normalized-fast  0 'blocked/.* \+17\.65% .*IMPROVEMENT'    -- $B compare $F/base.json $F/fast.json --metric normalized
expect few-reps-warn    0 'smallest possible p is 0\.1 >= 0\.01 \(alpha 0\.05 over 5 tested rows, holm\)' \
                           -- $B compare $F/few_base.json $F/few_slow.json
expect few-reps-none    0 'smallest possible p is 0\.1 >= alpha 0\.05, .* at least 4 repetitions' \
                           -- $B compare $F/few_base.json $F/few_slow.json --correction none
expect other-machine    0 'warning: the files come from different machines \(cpu_model' \
                           -- $B compare $F/base.json $F/other_machine.json
expect other-build      0 'different builds \(build_id'           -- $B compare $F/base.json $F/other_machine.json
expect gbench-slow      1 'BM_attention/1024 .* \+10\.00% +- +1/1 +REGRESSION' \
                           -- $B compare $F/gbench_base.json $F/gbench_slow.json
expect gbench-says-so   1 'threshold alone, without a significance test' \
                           -- $B compare $F/gbench_base.json $F/gbench_slow.json
expect gbench-same      0 '4 same'                                 -- $B compare $F/gbench_base.json $F/gbench_base.json
expect markdown         1 "^### :x: headroom compare: 1 regression" -- $B compare $F/base.json $F/slow.json --format markdown
expect markdown-row     1 "\| \`$SLOW\` \| .* \| \+10\.00% \| \+10\.00% \| 0\.000206 \| 9/9 \| \*\*REGRESSION\*\* \|" \
                           -- $B compare $F/base.json $F/slow.json --format markdown
expect markdown-ok      0 ':white_check_mark: headroom compare: 0 regressions' \
                           -- $B compare $F/base.json $F/same.json --format markdown
expect json             1 '"regression":[[:space:]]*1'             -- $B compare $F/base.json $F/slow.json --format json

# The machine's shift (8 rows with probes; scripts/make_compare_fixtures.py).
S=$F/shift_base.json
ROW1='flash/B1/H8/G8/N1024/M1024/d64/none/bhnd/T2'
expect machine-slow     0 'shift: the new run was 25\.0% slower across 8 rows \(spread 0\.0%\): the machine, not the code \(probes: 25\.0% slower\)' \
                           -- $B compare $S $F/shift_machine_slow.json
expect machine-same     0 'result: 0 regressions, 0 improvements, 8 same'  -- $B compare $S $F/shift_machine_slow.json
expect machine-noshift  1 'result: 8 regressions'                  -- $B compare $S $F/shift_machine_slow.json --no-shift
expect noshift-note     1 'shift: not taken out \(--no-shift\)'     -- $B compare $S $F/shift_machine_slow.json --no-shift
expect machine-fast     0 '20\.0% faster across 8 rows .* \(probes: 20\.0% faster\)' \
                           -- $B compare $S $F/shift_machine_fast.json
expect machine-plus     1 "$ROW1 .* \+37\.50% +\+10\.00% +0\.000329 +9/9 +REGRESSION" \
                           -- $B compare $S $F/shift_machine_plus.json
expect code-slow        1 'the rest \(10\.0% slower\) is the code.s'  -- $B compare $S $F/shift_code_slow.json
expect code-common      1 'common shift \+10\.0%: REGRESSION'        -- $B compare $S $F/shift_code_slow.json
expect uneven           3 'shift: cannot separate machine from code: the rows moved unevenly' \
                           -- $B compare $S $F/shift_uneven.json
expect uneven-result    3 'result: cannot separate machine from code; 4 regressions' \
                           -- $B compare $S $F/shift_uneven.json
expect disagree         3 'the probes say the machine was 20\.0% faster' -- $B compare $S $F/shift_disagree.json
expect noprobe          3 'only 0 rows carry the same probe'        -- $B compare $F/noprobe_base.json $F/noprobe_slow.json
expect noprobe-small    1 '3\.0% slower across 8 rows .* taken out as the machine' \
                           -- $B compare $F/noprobe_base.json $F/noprobe_small.json
expect kindflip         0 '2 benchmark\(s\) normalized by different probes' \
                           -- $B compare $S $F/shift_kindflip.json --metric normalized
expect undecided-md     3 '^### :warning: headroom compare: cannot separate machine from code' \
                           -- $B compare $S $F/shift_uneven.json --format markdown
expect shift-md         0 '^\*\*Shift:\*\* the new run was 25\.0% slower' \
                           -- $B compare $S $F/shift_machine_slow.json --format markdown

# Unusable input: exit 2 and a one-line message naming the file or flag.
expect malformed        2 "headroom compare: $F/malformed.json: invalid JSON at line 4" \
                           -- $B compare $F/base.json $F/malformed.json
expect truncated        2 "headroom compare: $F/truncated.json: .*truncated" \
                           -- $B compare $F/base.json $F/truncated.json
expect nobench          2 "$F/nobench.json: no \"benchmarks\" array" -- $B compare $F/nobench.json $F/base.json
expect missing          2 "$F/nope.json: cannot read results file \(No such file"             -- $B compare $F/base.json $F/nope.json
expect directory        2 "$F/results.json: cannot read results file"  -- $B compare $F $F/base.json
expect no-match         2 'no benchmark in .*gbench_base.json matches one in .*base.json' \
                           -- $B compare $F/base.json $F/gbench_base.json
expect filter-nothing   2 "after --filter 'zzz'"                   -- $B compare $F/base.json $F/same.json --filter zzz
expect normalized-none  2 "gbench_base.json: benchmark '.*' has no 'frac_of_ceiling' counter" \
                           -- $B compare $F/gbench_base.json $F/gbench_slow.json --metric normalized
expect bad-regex        2 "--filter: invalid regular expression" -- $B compare $F/base.json $F/same.json --filter '(['
expect one-file         2 'expected two results files'            -- $B compare $F/base.json
expect three-files      2 "unexpected argument"                   -- $B compare $F/base.json $F/same.json $F/slow.json
expect bad-threshold    2 '--threshold: must be in'               -- $B compare $F/base.json $F/same.json --threshold -1
expect bad-alpha        2 '--alpha: must be in'                   -- $B compare $F/base.json $F/same.json --alpha 0
expect bad-metric       2 '--metric: expected one of time\|normalized' -- $B compare $F/base.json $F/same.json --metric gflops
expect bad-format       2 '--format: expected one of table\|markdown\|json' -- $B compare $F/base.json $F/same.json --format html
expect bad-correction   2 '--correction: expected one of holm\|bh\|none' -- $B compare $F/base.json $F/same.json --correction bonferroni

# The JSON report parses and says what the table says.
out=$($B compare $F/base.json $F/slow.json --format json 2>/dev/null)
if printf '%s' "$out" | python3 -c '
import json, sys
j = json.load(sys.stdin)
r = [x for x in j["rows"] if x["verdict"] == "REGRESSION"]
assert len(r) == 1 and r[0]["name"] == sys.argv[1], r
assert abs(r[0]["delta_pct"] - 10) < 1e-9 and r[0]["test"] == "exact" and r[0]["p"] < 1e-4
assert abs(r[0]["p_adj"] - 5 * r[0]["p"]) < 1e-15 and abs(r[0]["adj_delta_pct"] - 10) < 1e-9
assert j["counts"] == {"same": 4, "noise": 0, "regression": 1, "improvement": 0}
assert j["correction"] == "holm" and j["tested_rows"] == 5 and j["exit_status"] == 1
assert j["shift"]["status"] == "few-rows" and j["shift"]["taken_out_pct"] == 0
' "$SLOW"; then ok json-parses; else fail json-parses "JSON report wrong"; fi

# The shift in JSON: what moved, what the probes saw, what was taken out.
out=$($B compare $S $F/shift_machine_slow.json --format json 2>/dev/null)
if printf '%s' "$out" | python3 -c '
import json, sys
j = json.load(sys.stdin)
s = j["shift"]
assert s["status"] == "machine" and not s["undecided"] and s["rows"] == 8 and s["probed_rows"] == 8
assert abs(s["common_pct"] - 25) < 1e-9 and abs(s["probes_pct"] - 25) < 1e-9
assert abs(s["taken_out_pct"] - 25) < 1e-9 and s["code_verdict"] == "same"
assert all(abs(r["adj_delta_pct"]) < 1e-9 and abs(r["probe_delta_pct"] + 20) < 1e-9 for r in j["rows"])
assert j["exit_status"] == 0
'; then ok json-shift; else fail json-shift "JSON shift wrong"; fi
out=$($B compare $S $F/shift_uneven.json --format json 2>/dev/null)
if printf '%s' "$out" | python3 -c '
import json, sys
j = json.load(sys.stdin)
assert j["shift"]["status"] == "uneven" and j["shift"]["undecided"] and j["exit_status"] == 3
'; then ok json-undecided; else fail json-undecided "JSON undecided wrong"; fi

# A file written as a CI step would: stdout is only the report, warnings go to stderr too.
$B compare $F/base.json $F/other_machine.json --format markdown >"$TMP/md" 2>"$TMP/err"
if grep -q '^> \*\*Warning:\*\* the files come from different machines' "$TMP/md" &&
   grep -q '^headroom compare: warning: the files come from different machines' "$TMP/err" &&
   ! grep -q '^headroom compare: warning' "$TMP/md"; then
    ok markdown-warnings
else
    fail markdown-warnings "warning missing from the report or from stderr"
fi

# --p-asymptotic: compare.py's p (normal approximation on the samples as measured, no
# correction) and its geomean beside headroom's; where scipy is installed, the same
# numbers as scipy.stats.mannwhitneyu's default (9 vs 9: asymptotic) and report.py's
# calculate_geomean (every repetition row).
expect p-asym-column 0 'naive/B1/H8/G8/N512/M512/d64/none/bhnd/T1 .* noise +0\.158$' \
                           -- $B compare $F/base.json $F/noisy.json --p-asymptotic
expect p-asym-geomean 0 '^geomean \(compare\.py\) +\+1\.17%' -- $B compare $F/base.json $F/noisy.json --p-asymptotic
expect p-asym-markdown 0 '\| p asym \|' -- $B compare $F/base.json $F/noisy.json --p-asymptotic --format markdown
expect p-asym-off 0 'verdict$' -- $B compare $F/base.json $F/noisy.json
SCIPY=""
for p in /usr/bin/python3 python3; do
    if "$p" -c 'import scipy.stats' 2>/dev/null; then SCIPY=$p; break; fi
done
if [ -n "$SCIPY" ]; then
    $B compare $F/base.json $F/slow.json --p-asymptotic --format json > "$TMP/pa.json" 2>/dev/null
    if "$SCIPY" - "$F/base.json" "$F/slow.json" "$TMP/pa.json" <<'PY'
import json, math, sys
from scipy.stats import mannwhitneyu, gmean
base, new, rep = (json.load(open(p)) for p in sys.argv[1:])
def reps(d):
    out = {}
    for b in d["benchmarks"]:
        if b.get("run_type", "iteration") == "iteration":
            out.setdefault(b["run_name"], []).append(b["real_time"])
    return out
rb, rn = reps(base), reps(new)
for r in rep["rows"]:
    p = mannwhitneyu(rb[r["name"]], rn[r["name"]], alternative="two-sided").pvalue
    assert abs(r["p_asymptotic"] - p) <= 1e-9 * max(p, 1e-300), (r["name"], r["p_asymptotic"], p)
g = 100 * (gmean([t for v in rn.values() for t in v]) / gmean([t for v in rb.values() for t in v]) - 1)
assert abs(rep["gbench_geomean_delta_pct"] - g) < 1e-9, (rep["gbench_geomean_delta_pct"], g)
PY
    then ok p-asym-scipy; else fail p-asym-scipy "p_asymptotic or the geomean differ from scipy's"; fi
else
    echo "skip compare/p-asym-scipy: no scipy (not counted)"
fi

finish
