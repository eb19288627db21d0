# sh_likwid.sh — the likwid counter merge (scripts/likwid-merge.py) on fixtures laid out
# as likwid-perfctr -m -O writes them (tests/fixtures/likwid: a 2-thread FLOPS_SP run
# with STAT tables, a 1-thread MEM run without), and likwid-sweep.sh's usage errors.
SUITE=likwid
. "$(dirname "$0")/lib.sh"
F=tests/fixtures/likwid

if command -v python3 >/dev/null; then
    cp "$F"/likwid_*.csv "$TMP/"
    expect merge 0 '^likwid-sweep: 13 counter rows in' -- python3 scripts/likwid-merge.py "$TMP" FLOPS_SP MEM L3
    csv=$TMP/likwid.csv
    expect header 0 '^name,group,metric,sum,min,max,avg$' -- head -n 1 "$csv"
    # 2 threads: the STAT table's Sum, Min, Max, Avg; not the per-thread rows again
    expect flash-sp 0 '^flash/B1/H16/G16/N2048/M2048/d64/full/bhnd/T2,FLOPS_SP,SP \[MFLOP/s\],195501,97500\.5,98000\.5,97750\.5$' \
        -- grep -F 'flash/B1/H16/G16/N2048/M2048/d64/full/bhnd/T2,FLOPS_SP,SP [MFLOP/s]' "$csv"
    expect one-row-per-metric 0 '^5$' -- sh -c "grep -c '^flash/.*,FLOPS_SP,' '$csv'"
    expect raw-skipped 1 '' -- grep -q 'RETIRED_SSE_AVX_FLOPS_SINGLE_ALL' "$csv"
    # the naive region: a thread that did no work still counts in min and avg
    expect naive-sp 0 ',SP \[MFLOP/s\],7100\.25,0,7100\.25,3550\.12' -- grep -F 'naive/' "$csv"
    # 1 thread: no STAT table, the value is its own sum, min, max and mean
    expect decode-mem 0 '^decode/B1/H32/G8/N1/M16384/d128/full/bhnd/T1,MEM,Memory bandwidth \[MBytes/s\],24250\.5,24250\.5,24250\.5,24250\.5$' \
        -- grep -F 'Memory bandwidth' "$csv"
    expect not-a-dir 2 'not a directory' -- python3 scripts/likwid-merge.py "$TMP/nosuch" MEM
else
    skip merge "no python3"
fi
expect sweep-usage 2 'usage: scripts/likwid-sweep.sh CONFIG' -- bash scripts/likwid-sweep.sh
expect sweep-noconfig 2 'nosuch.ini: no such config' -- bash scripts/likwid-sweep.sh "$TMP/nosuch.ini"
# likwid-roofs.sh on a stand-in likwid-bench (no timing): it reads the working sets of a
# ceilings file, runs one load and one triad per level and thread count, and records the
# figures as likwid-bench's beside the file.
if command -v python3 >/dev/null; then
    mkdir -p "$TMP/lr"
    printf '#!/bin/sh\necho "Threaded Memory Hierarchy Benchmark --  Version  5.2"\ncase "$*" in *-h*) exit 0;; esac\necho "$*" >> "%s/lr/calls"\nprintf "MByte/s:\\t\\t\\t50000.00\\n"\n' "$TMP" > "$TMP/lr/likwid-bench"
    chmod +x "$TMP/lr/likwid-bench"
    $B roofline --quick --threads 1 --out "$TMP/lr/ceilings.json" >/dev/null 2>&1
    expect roofs-run 0 '^ +1 +L2 +[0-9]+ .* 50\.0 ' -- env LIKWID_BENCH="$TMP/lr/likwid-bench" bash scripts/likwid-roofs.sh "$TMP/lr/ceilings.json"
    expect roofs-source 0 '"source": "likwid-bench"' -- cat "$TMP/lr/likwid-roofs.json"
    expect roofs-l1-cmd 0 '^-s 1 -t load_avx512 -w S0:[0-9]+kB:1$' -- head -n 1 "$TMP/lr/calls"
    expect roofs-calls 0 '^7$' -- sh -c "wc -l < '$TMP/lr/calls'"
    expect roofs-nofile 2 'no such ceilings file' -- env LIKWID_BENCH="$TMP/lr/likwid-bench" bash scripts/likwid-roofs.sh "$TMP/nosuch.json"
fi
finish
