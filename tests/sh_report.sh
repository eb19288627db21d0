#!/usr/bin/env bash
# sh_report.sh — headroom report on the committed two-machine fixtures: the per-shape
# markdown table (medians, % of each machine's own roofline, most threads), CSV, charts
# when gnuplot exists, a notice (not a failure) when it does not, errors naming the file.
SUITE=report
source "$(dirname "$0")/lib.sh"
A=tests/fixtures/report/amd-epyc-9654-2c/20261122-010000-shootout
X=tests/fixtures/report/intel-xeon-8480-16c/results.json
O=$TMP/rep

expect help          0 'usage: headroom report RESULTS'                 -- $B report --help
expect header        0 '^\| kernel \| amd-epyc-9654-2c \| intel-xeon-platinum-8480-16c \|' \
                        -- $B report $A $X --out $O
expect flash-row     0 '^\| flash \| 96\.00 \(64%\) T2 \| 640\.00 T16 \|' -- $B report $A $X --out $O
expect missing-cell  0 '^\| decode \| 20\.00 \(13%\) T2 \| - \|'         -- $B report $A $X --out $O
expect causal-shape  0 '^## B1 H8/8 N512x512 d64 causal'                -- $B report $A $X --out $O
expect registry-order 0 '^\| naive \|'                                  -- $B report $A $X --out $O
expect machines      0 '\| intel-xeon-platinum-8480-16c \| Intel\(R\) Xeon\(R\) Platinum 8480\+ \| 16 \| avx512 \|' \
                        -- $B report $A $X --out $O
expect csv           0 '^intel-xeon-platinum-8480-16c,.*,B1 H16/16 N2048x2048 d64,flash,16,640,,,' \
                        -- $B report $A $X --out $O --format csv
expect same-machine  0 '\| amd-epyc-9654-2c #2 \|'                       -- $B report $A $A/results.json --out $O
if [ -s $O/report.md ] && [ -s $O/report.csv ]; then ok files-written; else fail files-written "no report.md/csv in $O"; fi

# --relative-to: a ratio column per other machine (its thread count beside the reference's
# when they differ), the ratio in the CSV; an unknown machine names those there are.
expect rel-header    0 '^\| kernel \| amd-epyc-9654-2c \| intel-xeon-platinum-8480-16c \| intel-xeon-platinum-8480-16c ÷ amd-epyc-9654-2c \|$' \
                        -- $B report $A $X --out $O --no-charts --relative-to amd-epyc-9654-2c
expect rel-row       0 '^\| flash \| 96\.00 \(64%\) T2 \| 640\.00 T16 \| 6\.67× \(T16 vs T2\) \|$' \
                        -- $B report $A $X --out $O --no-charts --relative-to amd-epyc-9654-2c
expect rel-same-threads 0 '^\| naive \| 2\.50 \(3%\) T1 \| 3\.00 T1 \| 1\.20× \|$' \
                        -- $B report $A $X --out $O --no-charts --relative-to amd-epyc-9654-2c
expect rel-missing   0 '^\| decode \| 20\.00 \(13%\) T2 \| - \| - \|$' -- $B report $A $X --out $O --no-charts --relative-to amd-epyc-9654-2c
expect rel-csv       0 '^intel-xeon-platinum-8480-16c,.*,flash,16,640,.*results\.json,6\.667$' \
                        -- $B report $A $X --out $O --no-charts --format csv --relative-to amd-epyc-9654-2c
expect rel-unknown   2 "--relative-to: no machine 'nope' among the results \(amd-epyc-9654-2c, intel-xeon-platinum-8480-16c\)" \
                        -- $B report $A $X --out $O --no-charts --relative-to nope

if command -v gnuplot > /dev/null 2>&1; then
    rm -rf $O
    expect charts    0 'and 2 charts'                                   -- $B report $A $X --out $O
    if [ "$(head -c 4 $O/shape-1.png | tail -c 3)" = PNG ] && grep -q '<svg' $O/shape-2.svg &&
        grep -q '!\[GFLOP/s per kernel and machine, B1 H16/16 N2048x2048 d64\](shape-1.svg)' $O/report.md; then
        ok chart-files
        grep -q '^"flash T2/T16" 96 640$' $O/shape-1.dat && ok chart-threads || fail chart-threads "no thread counts in the bar labels"
    else
        fail chart-files "shape-N.png/.svg missing or not linked from report.md"
    fi
else
    skip charts "no gnuplot here"
fi
rm -rf $O
expect no-gnuplot    0 'notice: no charts: .*not found.*tables are still written' \
                        -- env HEADROOM_GNUPLOT=/nonexistent/gnuplot $B report $A $X --out $O
if [ -s $O/report.md ] && ! ls $O/*.png > /dev/null 2>&1; then ok no-gnuplot-md; else fail no-gnuplot-md "markdown missing or images made"; fi

expect no-args       2 'give at least one results'                      -- $B report
expect not-there     2 "headroom report: $TMP/nope: No such file"       -- $B report $TMP/nope
mkdir -p $TMP/empty
expect no-json       2 'empty: no results.json in this directory'       -- $B report $TMP/empty
expect malformed     2 'malformed.json: invalid JSON at line'            -- $B report tests/fixtures/compare/malformed.json
finish
