#!/usr/bin/env bash
# sh_cli.sh — the CLI's contract: exit codes, one-line errors naming the flag, --help,
# the .npy files, and refusing absurd sizes without allocating them.
SUITE=cli
source "$(dirname "$0")/lib.sh"

expect no-command        2 'usage: headroom'          -- $B
expect unknown-command   2 "unknown command 'frobnicate'" -- $B frobnicate
expect top-help          0 'commands:'                -- $B --help
for c in list run check; do
    expect "help-$c" 0 "usage: headroom $c" -- $B $c --help
done
expect list-table        0 'naive'                    -- $B list
expect list-json         0 '"name":[[:space:]]*"naive"' -- $B list --format json
# the table's traffic column starts where its header does on every kernel's row
# (the capability column is as wide as the longest list)
col=$($B list | awk 'NR == 1 { c = index($0, "traffic"); next }
    /^[a-z]/ { n = split($0, f, " "); i = index($0, " " f[3] " "); if (i + 1 != c) bad = bad " " f[1] }
    END { print (c > 0 && bad == "") ? "aligned" : "misaligned:" bad }')
[ "$col" = aligned ] && ok list-columns-aligned || fail list-columns-aligned "$col"
expect list-bad-format   2 '--format: expected one of table\|json' -- $B list --format xml
expect run-no-kernel     2 '--kernel: required'     -- $B run
expect run-unknown-kernel 2 "--kernel: unknown kernel 'nope'" -- $B run --kernel nope
expect run-unknown-flag  2 "unknown option '--bogus'"  -- $B run --kernel naive --bogus 3
expect run-seq-nonnum    2 "--seq: expected an integer" -- $B run --kernel naive --seq abc
expect run-seq-zero      2 '--seq: must be in \[1, '   -- $B run --kernel naive --seq 0
expect run-seq-negative  2 '--seq: must be in \[1, '   -- $B run --kernel naive --seq -5
expect run-seq-huge      2 '--seq: must be in \[1, '   -- $B run --kernel naive --seq 2000000000
expect run-seq-overflowll 2 '--seq: expected an integer' -- $B run --kernel naive --seq 99999999999999999999999
expect run-missing-value 2 '--heads: missing value'  -- $B run --kernel naive --heads
expect run-kv-not-divide 2 '--kv-heads: 3 does not divide --heads 8' -- $B run --kernel naive --heads 8 --kv-heads 3
expect run-dhead-zero    2 '--d-head: must be in'    -- $B run --kernel naive --d-head 0
expect run-bad-layout    2 '--layout: expected one of bhnd\|bnhd' -- $B run --kernel naive --layout nchw
expect run-bad-dist      2 '--dist: expected one of'  -- $B run --kernel naive --dist cauchy
expect run-bad-maxmem    2 '--max-mem: expected a number of bytes' -- $B run --kernel naive --max-mem lots
expect run-flag-value    2 '--causal: takes no value' -- $B run --kernel naive --causal=yes
expect run-extra-arg     2 "unexpected argument 'extra'" -- $B run --kernel naive extra
# Absurd but in-range sizes: refused by the memory budget before any allocation (the
# ulimit makes an attempted allocation of that size fail loudly instead).
expect run-over-budget   2 '--max-mem: naive needs' -- bash -c "[ \"\${HR_SANITIZE:-0}\" = 1 ] || ulimit -v 4000000; $B run --kernel naive --seq 16000000 --heads 64"
expect run-small-budget  2 '--max-mem: naive needs' -- $B run --kernel naive --seq 4096 --max-mem 1M
expect check-unknown     2 "--kernel: unknown kernel 'nope'" -- $B check --kernel nope
expect run-ok-check      0 'pass'                      -- $B run --kernel naive --heads 2 --seq 33 --d-head 7 --causal --check --reps 3 --min-time 0.001
expect run-csv           0 '^name,kernel,batch'        -- $B run --kernel naive --seq 16 --reps 2 --min-time 0 --format csv
expect run-json          0 '"run_type":[[:space:]]*"aggregate"' -- $B run --kernel naive --seq 16 --reps 2 --min-time 0 --format json
expect run-oversub-warn  0 'warning: .*oversubscribed|naive' -- $B run --kernel naive --seq 16 --reps 2 --min-time 0 --threads 8
# The shared flag groups: each command takes its members, with its own formats.
expect tune-format-subset 2 '--format: expected one of table\|csv' -- $B tune --kernel flash --format json
expect layer-no-cold     2 "unknown option '--cold'"   -- $B layer --cold
expect tune-no-nowisdom  2 "unknown option '--no-wisdom'" -- $B tune --kernel flash --no-wisdom
expect run-help-groups   0 'phase-threshold PCT'       -- $B run --help

# --save writes .npy files that read back; numpy (when present) recomputes attention.
expect run-save 0 'pass' -- $B run --kernel naive --heads 4 --kv-heads 2 --seq 64 --seq-kv 80 --d-head 16 --causal --check --reps 1 --min-time 0 --save "$TMP/npy"
if [ -f "$TMP/npy/o.npy" ] && [ "$(head -c 6 "$TMP/npy/o.npy" | tail -c 5)" = "NUMPY" ]; then ok save-files; else fail save-files "no o.npy"; fi
if find_python numpy; then
    expect numpy-matches 0 'max_rel' -- "$PY" tests/npy_attention.py "$TMP/npy" --causal
    # The README runs it directly: executable, with a python3 shebang.
    [ -x tests/npy_attention.py ] && ok npy-script-executable || fail npy-script-executable "tests/npy_attention.py is not executable"
else
    skip numpy-matches "no python3 with numpy (Debian: python3-numpy)"
fi

# The optional blas kernel: with OpenBLAS it runs; without (make BLAS=0, make test-noblas)
# naming it says why it is missing, and a config that lists it degrades with a note.
if $B list | grep -q '^blas '; then
    expect blas-present 0 'blas ' -- $B run --kernel blas --seq 16 --reps 1 --min-time 0
else
    expect noblas-run    2 "^headroom run: --kernel: kernel 'blas' is not in this build: OpenBLAS was not found" \
                            -- $B run --kernel blas
    expect noblas-check  2 "kernel 'blas' is not in this build" -- $B check --kernel blas
    printf '[sweep]\nkernels = naive, blas\nseq = 16\nheads = 1\n' > "$TMP/nb.ini"
    expect noblas-sweep  0 "note: kernel 'blas' left out of this sweep: OpenBLAS" -- $B sweep "$TMP/nb.ini" --dry-run
    expect noblas-sweep-rest 0 '^1 points: 1 to run' -- $B sweep "$TMP/nb.ini" --dry-run
    printf '[sweep]\nkernels = blas\n' > "$TMP/nb1.ini"
    expect noblas-none   2 'nb1.ini:2: kernels: none of these kernels is in this build' -- $B sweep "$TMP/nb1.ini" --dry-run
fi
finish
