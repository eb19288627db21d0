# sh_export.sh — headroom export (CI trackers) and --aggregates-only on run and sweep: a
# 12-point sweep exported for github-action-benchmark (both metrics) and Bencher, checked
# by tests/tracker_parse.py against the trackers' own parsing rules.
SUITE=export
. "$(dirname "$0")/lib.sh"
HERE=$(cd "$(dirname "$0")" && pwd)

cfg=$TMP/twelve.ini
sweep_config "$cfg" "description=test: 12 points for the CI trackers" "kernels=naive, blocked, flash" \
    "seq=32, 64" "causal=false, true"

expect sweep 0 '12 rows' -- "$HR_BIN" sweep "$cfg" --out "$TMP/full" --no-probe
expect sweep_aggs 0 '12 rows' -- "$HR_BIN" sweep "$cfg" --out "$TMP/aggs" --no-probe --aggregates-only

# --aggregates-only: no iteration rows, 4 aggregates per point, recorded in "sweep".
agg_check() {
    python3 - "$1" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
rt = [b.get("run_type") for b in d["benchmarks"]]
print("iterations", rt.count("iteration"), "aggregates", rt.count("aggregate"),
      "flag", d["sweep"]["aggregates_only"])
PY
}
agg_check "$TMP/aggs/results.json" > "$TMP/aggs.rows" 2>&1
agg_check "$TMP/full/results.json" > "$TMP/full.rows" 2>&1
expect aggregates_only_rows 0 '^iterations 0 aggregates 48 flag True$' -- cat "$TMP/aggs.rows"
expect full_rows 0 '^iterations 36 aggregates 48 flag False$' -- cat "$TMP/full.rows"
expect run_aggs_needs_json 2 'only with --format json' -- "$HR_BIN" run --kernel naive --seq 16 --aggregates-only
run_aggs() {
    "$HR_BIN" run --kernel naive --seq 16 --heads 1 --d-head 8 --reps 3 --min-time 0.001 --format json \
        --aggregates-only --no-probe 2>/dev/null |
        python3 -c 'import json,sys; print(sorted({b["run_type"] for b in json.load(sys.stdin)["benchmarks"]}))'
}
run_aggs > "$TMP/run.rows" 2>&1
expect run_aggregates_only 0 "^\['aggregate'\]$" -- cat "$TMP/run.rows"

for src in full aggs; do
    f=$TMP/$src/results.json
    "$HR_BIN" export "$f" --to github-action-benchmark > "$TMP/$src-gab-gflops.json"
    "$HR_BIN" export "$f" --to github-action-benchmark --metric time > "$TMP/$src-gab-time.json"
    "$HR_BIN" export "$f" --to bencher --metric time > "$TMP/$src-bencher-time.json"
    "$HR_BIN" export "$f" --to bencher > "$TMP/$src-bencher-gflops.json"
done
python3 "$HERE/tracker_parse.py" 12 \
    "gab:$TMP/full-gab-gflops.json:GFLOP/s" "gab:$TMP/full-gab-time.json:ns" \
    "gab:$TMP/aggs-gab-gflops.json:GFLOP/s" "gab:$TMP/aggs-gab-time.json:ns" \
    "bencher:$TMP/full-bencher-time.json:latency" "bencher:$TMP/full-bencher-gflops.json:gflops" \
    "bencher:$TMP/aggs-bencher-time.json:latency" "bencher:$TMP/aggs-bencher-gflops.json:gflops" || nfail=$((nfail + 1))

# The value is the median of the repetitions: the file's own median aggregate.
same_values() {
    python3 - "$TMP/full/results.json" "$TMP/full-gab-time.json" <<'PY'
import json, sys
res, gab = (json.load(open(p)) for p in sys.argv[1:])
med = {b["run_name"]: b["real_time"] for b in res["benchmarks"] if b.get("aggregate_name") == "median"}
print("same" if all(abs(med[e["name"]] - e["value"]) <= 1e-9 * e["value"] for e in gab) else "differ")
PY
}
same_values > "$TMP/same" 2>&1
expect median_is_value 0 '^same$' -- cat "$TMP/same"
# A Google Benchmark file without a FLOP count exports its time, and says why not GFLOP/s.
expect gbench_time 0 '"unit":[[:space:]]*"ns"' -- "$HR_BIN" export "$HERE/fixtures/compare/gbench_base.json" --to github-action-benchmark --metric time
expect gbench_no_flops 2 "no FLOP count .* use --metric time" -- "$HR_BIN" export "$HERE/fixtures/compare/gbench_base.json" --to github-action-benchmark
expect usage_to 2 '--to: required' -- "$HR_BIN" export "$TMP/full/results.json"
expect usage_file 2 'expected one results directory or results file' -- "$HR_BIN" export --to bencher
finish
