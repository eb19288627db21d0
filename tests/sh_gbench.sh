# sh_gbench.sh — the Google Benchmark front end writes headroom's row names and context, so
# its files compare, export and join a history like sweep files. Runs where the front end
# is built (make gbench; .ci/run builds it and runs this suite again); a skip line otherwise.
SUITE=gbench
. "$(dirname "$0")/lib.sh"
GB=${HR_GBENCH:-$(dirname "$HR_BIN")/headroom_gbench}
[ -x "$GB" ] || GB=$(dirname "$HR_BIN")/build/portable/headroom_gbench
if [ ! -x "$GB" ]; then
    echo "skip gbench/all: headroom_gbench not built (make gbench) (not counted)"
    finish
    exit 0
fi
# The front end's shapes are fixed; pick its smallest flash row and time the same shape with run.
timeout 120 "$GB" --benchmark_filter='^flash/B1/H8/G8/N256/M256/d64/full/' --benchmark_min_time=0.01 \
    --benchmark_repetitions=3 --benchmark_format=json > "$TMP/gb.json" 2> "$TMP/gb.err"
"$HR_BIN" run --kernel flash --heads 8 --seq 256 --d-head 64 --reps 3 --min-time 0.01 --no-probe \
    --format json > "$TMP/run.json" 2> /dev/null
python3 - "$TMP/gb.json" "$TMP/run.json" > "$TMP/check" 2>&1 <<'PY'
import json, re, sys
gb, run = (json.load(open(p)) for p in sys.argv[1:])
names = {b["run_name"] for b in gb["benchmarks"]}
pat = re.compile(r"^[a-z0-9_]+/B\d+/H\d+/G\d+/N\d+/M\d+/d\d+/(full|causal)/(bhnd|bnhd)/T\d+$")
bad = [n for n in names if not pat.match(n)]
assert not bad, f"names not in the sweep's form: {bad}"
runs = {b["run_name"] for b in run["benchmarks"]}
assert names == runs, f"gbench {names} vs run {runs}"
c = gb["context"]
missing = [k for k in ("machine", "isa", "cflags", "git_commit", "build_id", "cpu_model") if k not in c]
assert not missing, f"context lacks {missing}"
assert c["machine"] == run["context"]["machine"], (c["machine"], run["context"]["machine"])
assert all("flops" in b for b in gb["benchmarks"] if b.get("run_type") == "iteration")
print("aligned", len(names))
PY
expect aligned 0 '^aligned 1$' -- cat "$TMP/check"
# Matched by name: compare judges the row (0, 1 or 3, never 2 "no rows in common").
"$HR_BIN" compare "$TMP/gb.json" "$TMP/run.json" > "$TMP/cmp" 2>&1
rc=$?
if [ "$rc" != 2 ]; then ok compare_matches; else fail compare_matches "$(tail -n 1 "$TMP/cmp")"; fi
expect export 0 '"unit":[[:space:]]*"GFLOP/s"' -- "$HR_BIN" export "$TMP/gb.json" --to github-action-benchmark
finish
