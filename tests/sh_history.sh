# sh_history.sh — headroom history over synthetic run histories (scripts/make_history_fixtures.py):
# four runs of two commits whose directory names sort against their commit dates; a planted
# 10% slowdown in the newest run is flagged (--check exits 1), an A/A series is not (exit 0);
# machines and thread counts are not mixed without --mix; the trend chart is drawn.
SUITE=history
. "$(dirname "$0")/lib.sh"
HERE=$(cd "$(dirname "$0")" && pwd)
H=$TMP/hist
python3 "$HERE/../scripts/make_history_fixtures.py" "$H"

expect slow_flagged 1 'flash/B1/H2/G2/N64/M64/d16/full/bhnd/T2' -- "$HR_BIN" history "$H/slow" --check --no-plot
"$HR_BIN" history "$H/slow" --no-plot > "$TMP/slow.txt" 2>&1
expect slow_newest_line 0 '^ +4 +bbbbbbbbbbbb .*\+1[01]\.[0-9]+% .* SLOWER$' -- cat "$TMP/slow.txt"
expect slow_only_one 0 '^newest run \(4, bbbbbbbbbbbb\): 1 slower and 0 faster change points of 3 benchmarks$' -- cat "$TMP/slow.txt"
# Without --check the table is the answer: exit 0 even with a change point.
expect slow_no_check 0 'SLOWER' -- "$HR_BIN" history "$H/slow" --no-plot
expect aa_clean 0 'newest run \(4, bbbbbbbbbbbb\): 0 slower and 0 faster' -- "$HR_BIN" history "$H/aa" --check --no-plot
"$HR_BIN" history "$H/aa" --no-plot > "$TMP/aa.txt" 2>&1
if grep -Eq 'SLOWER|faster$' "$TMP/aa.txt"; then fail aa_no_flags "an A/A history has a flag: $(grep -Em1 'SLOWER|faster$' "$TMP/aa.txt")"; else ok aa_no_flags; fi
# Ordered by commit date: run 1 is d1-first's commit A, run 4 commit B; c2 of aa has no
# git_commit_time and is placed by its run date (marked *).
expect aa_run_date 0 '^ +2 +aaaaaaaaaaaa +2026-01-03T09:00\* ' -- cat "$TMP/aa.txt"
expect two_commits 0 '^headroom history: 4 runs of 2 commits, machine test-machine-2c, omp_max_threads 2$' -- cat "$TMP/aa.txt"
# The slowed run alone against one earlier run, named as files: still flagged.
expect files_as_runs 1 'SLOWER' -- "$HR_BIN" history "$H/slow/a4-newest/results.json" "$H/slow/d1-first" --check --no-plot
expect filter 0 'of 2 benchmarks' -- "$HR_BIN" history "$H/slow" --filter '^naive/' --check --no-plot
expect no_match 2 'no benchmark matches --filter' -- "$HR_BIN" history "$H/slow" --filter '^nosuch' --no-plot
expect other_machine 2 "runs of two machines, 'test-machine-2c' .* and 'another-machine-8c' .*--mix" -- "$HR_BIN" history "$H/aa" "$H/other" --no-plot
expect other_threads 2 'omp_max_threads 2 .* and 4 .*--mix' -- "$HR_BIN" history "$H/aa" "$H/threads" --no-plot
expect mix_allowed 0 'and others \(--mix\)' -- "$HR_BIN" history "$H/aa" "$H/other" --mix --no-plot
# --k 0 and --threshold 0 flag every significant wiggle: the rule's knobs reach the judge.
expect knobs_reach 0 'SLOWER|faster' -- "$HR_BIN" history "$H/aa" --k 0 --threshold 0 --alpha 1 --no-plot

# The chart: GFLOP/s and fraction of the roof per kernel over the runs.
if command -v "${HEADROOM_GNUPLOT:-gnuplot}" > /dev/null 2>&1; then
    expect chart 0 "chart: $TMP/chart/history.png" -- "$HR_BIN" history "$H/slow" --out "$TMP/chart"
    for f in history.png history.svg history.dat; do
        if [ -s "$TMP/chart/$f" ]; then ok "chart_$f"; else fail "chart_$f" "missing or empty"; fi
    done
    # Two kernels (flash, naive), four runs each; run 4 of flash is 10% lower.
    expect chart_blocks 0 '^flash 4 naive 4$' -- awk 'BEGIN{b=0} /^$/{blank++; next} {if (blank>=2||NR==1){b++; blank=0}; n[b]++} END{printf "flash %d naive %d\n", n[1], n[2]}' "$TMP/chart/history.dat"
else
    echo "skip $SUITE/chart: no gnuplot (not counted)"
fi
# Real runs written by this binary: their context carries git_commit and git_commit_time,
# and the reader takes their rows; two runs of one commit read as a history of 1 commit.
printf '[sweep]\nkernels = naive, flash\nheads = 1\nd_head = 8\nseq = 16\nthreads = 1\nreps = 3\nmin_time = 0.001\nwarmup = 0\n' > "$TMP/t.ini"
"$HR_BIN" sweep "$TMP/t.ini" --out "$TMP/real/r1" --no-probe > /dev/null 2>&1
"$HR_BIN" sweep "$TMP/t.ini" --out "$TMP/real/r2" --no-probe --aggregates-only > /dev/null 2>&1
expect real_runs 0 '^headroom history: 2 runs of 1 commit, ' -- "$HR_BIN" history "$TMP/real" --no-plot
expect real_rows 0 '^flash/B1/H1/G1/N16/M16/d8/full/bhnd/T1$' -- "$HR_BIN" history "$TMP/real" --no-plot
if git -C "$HERE/.." rev-parse HEAD > /dev/null 2>&1; then # built from a git checkout
    expect real_commit_time 0 '"git_commit_time":[[:space:]]*"[0-9]{4}-' -- cat "$TMP/real/r1/results.json"
fi
finish
