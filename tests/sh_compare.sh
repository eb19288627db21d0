#!/usr/bin/env bash
# sh_compare.sh — headroom compare's contract: exit 0/1/2, the regressed row named, the
# three formats, warnings, and one-line errors naming the file or flag.
SUITE=compare
source "$(dirname "$0")/lib.sh"
B=$HR_BIN
F=tests/fixtures/compare
SLOW='flash/B1/H16/G16/N2048/M2048/d64/causal/bhnd/T2'

expect help             0 'usage: headroom compare BASE NEW'       -- $B compare --help
expect identical        0 'result: 0 regressions, 0 improvements, 5 same' -- $B compare $F/base.json $F/same.json
expect slowdown         1 "$SLOW +[0-9.]+ ms +[0-9.]+ ms +\+10\.00% +4\.11e-05 +9/9 +REGRESSION" \
                           -- $B compare $F/base.json $F/slow.json
expect slowdown-geomean 1 'geomean \(5 rows\) +\+1\.92%'          -- $B compare $F/base.json $F/slow.json
expect improvement      0 'blocked/.* -15\.00% .* IMPROVEMENT'     -- $B compare $F/base.json $F/fast.json
expect noise            0 'naive/.* \+6\.00% +0\.161 +9/9 +noise'  -- $B compare $F/base.json $F/noisy.json
expect threshold-10     0 '0 regressions'                          -- $B compare $F/base.json $F/slow.json --threshold 10.5
expect alpha-strict     0 '4\.11e-05 .* noise'                     -- $B compare $F/base.json $F/slow.json --alpha 1e-5
expect ms-units         0 '5 same'                                 -- $B compare $F/base.json $F/ms.json
expect filter           0 '\(1 compared\)'                         -- $B compare $F/base.json $F/slow.json --filter '^naive/'
expect filter-hit       1 '\(1 compared\)'                         -- $B compare $F/base.json $F/slow.json --filter 'causal/bhnd'
expect normalized       1 "$SLOW.* -9\.09% .*REGRESSION"          -- $B compare $F/base.json $F/slow.json --metric normalized
expect normalized-fast  0 'blocked/.* \+17\.65% .*IMPROVEMENT'    -- $B compare $F/base.json $F/fast.json --metric normalized
expect few-reps-warn    0 'smallest possible p is 0\.1 >= alpha 0\.05' -- $B compare $F/few_base.json $F/few_slow.json
expect other-machine    0 'warning: the files come from different machines \(cpu_model' \
                           -- $B compare $F/base.json $F/other_machine.json
expect other-build      0 'different builds \(build_id'           -- $B compare $F/base.json $F/other_machine.json
expect gbench-slow      1 'BM_attention/1024 .* \+10\.00% +- +1/1 +REGRESSION' \
                           -- $B compare $F/gbench_base.json $F/gbench_slow.json
expect gbench-says-so   1 'threshold alone, without a significance test' \
                           -- $B compare $F/gbench_base.json $F/gbench_slow.json
expect gbench-same      0 '4 same'                                 -- $B compare $F/gbench_base.json $F/gbench_base.json
expect markdown         1 "^### :x: headroom compare: 1 regression" -- $B compare $F/base.json $F/slow.json --format markdown
expect markdown-row     1 "\| \`$SLOW\` \| .* \| \+10\.00% \| 4\.11e-05 \| 9/9 \| \*\*REGRESSION\*\* \|" \
                           -- $B compare $F/base.json $F/slow.json --format markdown
expect markdown-ok      0 ':white_check_mark: headroom compare: 0 regressions' \
                           -- $B compare $F/base.json $F/same.json --format markdown
expect json             1 '"regression":[[:space:]]*1'             -- $B compare $F/base.json $F/slow.json --format json

# Unusable input: exit 2 and a one-line message naming the file or flag.
expect malformed        2 "headroom compare: $F/malformed.json: invalid JSON at line 4" \
                           -- $B compare $F/base.json $F/malformed.json
expect truncated        2 "headroom compare: $F/truncated.json: .*truncated" \
                           -- $B compare $F/base.json $F/truncated.json
expect nobench          2 "$F/nobench.json: no \"benchmarks\" array" -- $B compare $F/nobench.json $F/base.json
expect missing          2 "$F/nope.json: No such file"             -- $B compare $F/base.json $F/nope.json
expect directory        2 "$F: not a regular file"                 -- $B compare $F $F/base.json
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

# The JSON report parses and says what the table says.
out=$($B compare $F/base.json $F/slow.json --format json 2>/dev/null)
if printf '%s' "$out" | python3 -c '
import json, sys
j = json.load(sys.stdin)
r = [x for x in j["rows"] if x["verdict"] == "REGRESSION"]
assert len(r) == 1 and r[0]["name"] == sys.argv[1], r
assert abs(r[0]["delta_pct"] - 10) < 1e-9 and r[0]["test"] == "exact" and r[0]["p"] < 1e-4
assert j["counts"] == {"same": 4, "noise": 0, "regression": 1, "improvement": 0}
' "$SLOW"; then ok json-parses; else fail json-parses "JSON report wrong"; fi

# A file written as a CI step would: stdout is only the report, warnings go to stderr too.
$B compare $F/base.json $F/other_machine.json --format markdown >"$TMP/md" 2>"$TMP/err"
if grep -q '^> \*\*Warning:\*\* the files come from different machines' "$TMP/md" &&
   grep -q '^headroom compare: warning: the files come from different machines' "$TMP/err" &&
   ! grep -q '^headroom compare: warning' "$TMP/md"; then
    ok markdown-warnings
else
    fail markdown-warnings "warning missing from the report or from stderr"
fi

finish
