# sh_sweep.sh — headroom sweep from the command line: errors, results files, Google
# Benchmark shape, resume, SIGINT keeping finished rows, interleaving within a memory budget.
SUITE=sweep
. "$(dirname "$0")/lib.sh"

cfg=$TMP/tiny.ini
sweep_config "$cfg" "description=test: two kernels, two N, causal and not" "kernels=naive, flash, decode" \
    "seq=32, 64" "causal=false, true"

expect usage 2 'CONFIG: required' -- "$HR_BIN" sweep
expect missing_file 2 'nosuch.ini: cannot read' -- "$HR_BIN" sweep "$TMP/nosuch.ini"
printf '[sweep]\nseq = 64\nseq = 128\n' > "$TMP/dup.ini"
expect dup_key 2 'dup.ini:3: key .seq. given twice' -- "$HR_BIN" sweep "$TMP/dup.ini"
printf '[sweep]\nseq = 64..128*1\n' > "$TMP/inf.ini"
expect endless_range 2 'inf.ini:2: seq: range 64..128\*1 never ends' -- "$HR_BIN" sweep "$TMP/inf.ini"
expect bad_filter 2 "unknown kernel 'nosuch'" -- "$HR_BIN" sweep "$cfg" --filter nosuch --dry-run
expect dry_run 0 '12 points: 8 to run, 4 skipped' -- "$HR_BIN" sweep "$cfg" --dry-run

out=$TMP/run1
expect run 0 '8 rows \(8 new, 0 resumed\), 4 skipped' -- "$HR_BIN" sweep "$cfg" --out "$out" --check
"$HR_BIN" sweep "$cfg" --out "$TMP/run1b" > "$TMP/run1.out" 2>/dev/null
for f in results.json results.csv rows.jsonl tiny.ini; do
    [ -s "$out/$f" ] && ok "file_$f" || fail "file_$f" "missing or empty"
done
[ "$(wc -l < "$out/rows.jsonl")" -eq 8 ] && ok rows_jsonl_lines || fail rows_jsonl_lines "$(wc -l < "$out/rows.jsonl") lines"
[ "$(wc -l < "$out/results.csv")" -eq 9 ] && ok csv_lines || fail csv_lines "$(wc -l < "$out/results.csv") lines"

# The summary: the shape x kernel table on stdout, summary.md and a self-contained
# index.html (a page of the site's template) whose data holds one row per measured point.
expect summary_stdout 0 '^shape +naive +flash' -- cat "$TMP/run1.out"
rows_md=$(sed -n '/^## Every row/,/^## /p' "$out/summary.md" | grep -c '^| ')
[ "$rows_md" -eq $((8 + 1)) ] && ok summary_md_rows || fail summary_md_rows "$rows_md table lines (header + 8 rows expected)"
rows_html=$(python3 -c 'import json, re, sys
t = open(sys.argv[1]).read()
print(len(json.loads(re.search(r"id=\"hr-data\">(.*?)</script>", t, re.S).group(1))["rows"]))' "$out/index.html")
[ "$rows_html" -eq 8 ] && ok summary_html_rows || fail summary_html_rows "$rows_html rows, 8 expected"
expect summary_html_self_contained 0 '^0$' -- bash -c "grep -Ec '<link|<script src|src=\"[^d]' '$out/index.html' || true"
expect summary_skipped 0 '^## Skipped' -- cat "$out/summary.md"
# headroom plot draws the charts and rewrites index.html with them inline.
if command -v "${HEADROOM_GNUPLOT:-gnuplot}" >/dev/null 2>&1; then
    cp -r "$out" "$TMP/plotted"
    expect summary_plot 0 'index.html with the charts inline' -- "$HR_BIN" plot "$TMP/plotted"
    expect summary_plot_svg 0 '^[1-9][0-9]*$' -- bash -c "sed -n '/<h2>Charts/,\$p' '$TMP/plotted/index.html' | grep -c '<svg'"
    # Hostile names: a results.json whose row names and description hold markup, '|' and
    # control characters come out escaped in both pages (no tag, no broken table row).
    python3 - "$TMP/plotted/results.json" <<'PY'
import json, sys
p = sys.argv[1]; d = json.load(open(p))
for b in d["benchmarks"]:
    for k in ("name", "run_name"):
        if b.get(k, "").startswith("naive/B1/H2/G2/N32/M32/d16/full"):
            b[k] = b[k].replace("naive/B1", 'naive/<script>"x"|y\n&z/B1')
d["sweep"]["description"] = "<img src=x onerror=alert(1)> | pipe"
json.dump(d, open(p, "w"))
PY
    expect summary_hostile_plot 0 'index.html with the charts inline' -- "$HR_BIN" plot "$TMP/plotted"
    # The names live in the page's JSON with every < as \u003c; the script writes them as text.
    expect summary_hostile_html 0 '^0$' -- bash -c "grep -c '<script>\"x\|<img src=x' '$TMP/plotted/index.html' || true"
    expect summary_hostile_html_escaped 0 'naive/\\u003cscript>\\"x\\"\|y' -- cat "$TMP/plotted/index.html"
    expect summary_hostile_md 0 '^\| naive/&lt;script&gt;"x"\\\|y\\n&amp;z/B1/' -- cat "$TMP/plotted/summary.md"
else
    echo "note $SUITE/summary_plot: no gnuplot, not run"
fi

# results.json read the way Google Benchmark's gbench/util.py and report.py read it:
# sort by family/instance index, partition by name, iteration rows vs aggregate rows by
# run_type and aggregate_name, times in time_unit, repetitions. Then, where Debian's
# libbenchmark-tools is installed (.ci/run installs it), its compare.py itself.
gbcheck=$TMP/gbcheck.py
cat > "$gbcheck" <<'EOF'
import json, sys
units = {"ns": 1e-9, "us": 1e-6, "ms": 1e-3, "s": 1.0}
d = json.load(open(sys.argv[1]))
assert isinstance(d.get("context"), dict) and "date" in d["context"], "context"
bs = sorted(d["benchmarks"], key=lambda b: (b.get("family_index", -1), b.get("per_family_instance_index", -1)))
assert bs, "no benchmarks"
parts = {}
for b in bs:
    assert b["time_unit"] in units, b["time_unit"]
    assert isinstance(b["real_time"], (int, float)) and isinstance(b["cpu_time"], (int, float))
    assert b["run_type"] in ("iteration", "aggregate"), b["run_type"]
    key = b.get("run_name", b["name"])
    parts.setdefault(key, []).append(b)
for name, rows in parts.items():
    it = [r for r in rows if r["run_type"] == "iteration"]
    ag = {r["aggregate_name"]: r for r in rows if r["run_type"] == "aggregate"}
    assert len(it) == it[0]["repetitions"], (name, len(it))
    assert set(ag) >= {"mean", "median", "stddev"}, (name, sorted(ag))
    assert ag["median"]["name"] == name + "_median"
    med = sorted(r["real_time"] for r in it)[len(it) // 2]
    assert abs(ag["median"]["real_time"] - med) <= 1e-6 * med + 1e-9 or len(it) % 2 == 0, name
    assert all(r["real_time"] > 0 for r in it), name
print("gbench-shape ok", len(parts), "benchmarks")
EOF
if command -v python3 >/dev/null; then
    expect gbench_shape 0 'gbench-shape ok 8 benchmarks' -- python3 "$gbcheck" "$out/results.json"
    gbcompare=${GBENCH_COMPARE:-/usr/share/benchmark/compare.py}
    # compare.py needs scipy and numpy: the first Python that has them (a pyenv or venv
    # python3 first on PATH often lacks them while Debian's /usr/bin/python3 has them).
    if [ -f "$gbcompare" ] && find_python scipy numpy; then
        expect gbench_compare_py 0 'U Test, Repetitions: [0-9]+ vs [0-9]+' \
            -- "$PY" "$gbcompare" -a benchmarks "$out/results.json" "$out/results.json"
    else
        skip gbench_compare_py "$gbcompare or a python3 with scipy and numpy missing (Debian: libbenchmark-tools python3-scipy)"
    fi
    expect skipped_array 0 '^4 decode' -- python3 -c "
import json; d = json.load(open('$out/results.json')); s = d['skipped']
print(len(s), ' '.join(sorted({x['name'].split('/')[0] for x in s})), s[0]['reason'])"
else
    skip gbench_shape "no python3"
fi

# Resume: keep 3 finished rows plus a torn fourth, resume, expect 8 rows again.
head -n 3 "$out/rows.jsonl" > "$TMP/rows3"
cp "$TMP/rows3" "$out/rows.jsonl"
printf '{"key":"torn' >> "$out/rows.jsonl"
expect resume 0 '8 rows \(5 new, 3 resumed\)' -- "$HR_BIN" sweep --resume "$out"
[ "$(wc -l < "$out/rows.jsonl")" -eq 8 ] && ok resume_rows || fail resume_rows "$(wc -l < "$out/rows.jsonl") lines"
expect resume_noop 0 '8 rows \(0 new, 8 resumed\)' -- "$HR_BIN" sweep "$cfg" --resume "$out"

# Names stay distinct when a config varies block sizes and repeats the product:
# compare and compare.py match rows by name. naive has no block knobs (no suffix, one
# point per pass); flash gets /bqQ/bkvK; both get /passP. Resume still matches them.
named=$TMP/named.ini
sweep_config "$named" "kernels=naive, flash" seq=32 "block_q=16, 32" passes=2 reps=2
nout=$TMP/named
expect named_run 0 '6 rows \(6 new, 0 resumed\)' -- "$HR_BIN" sweep "$named" --out "$nout"
if command -v python3 >/dev/null; then
    expect named_distinct 0 '^flash/B1/H2/G2/N32/M32/d16/full/bhnd/T1/bq16/bkv[0-9]+/pass1,flash/B1/H2/G2/N32/M32/d16/full/bhnd/T1/bq16/bkv[0-9]+/pass2,.*naive/B1/H2/G2/N32/M32/d16/full/bhnd/T1/pass2 6$' -- python3 -c "
import json, sys
b = json.load(open(sys.argv[1]))['benchmarks']
names = sorted({r['run_name'] for r in b})
print(','.join(names), len(names))" "$nout/results.json"
else
    skip named_distinct "no python3"
fi
head -n 3 "$nout/rows.jsonl" > "$TMP/rows3n" && cp "$TMP/rows3n" "$nout/rows.jsonl"
expect named_resume 0 '6 rows \(3 new, 3 resumed\)' -- "$HR_BIN" sweep --resume "$nout"

# models = NAME, ...: one shape per preset, in place of heads x kv_heads x d_head.
printf '[sweep]\nkernels = naive\nmodels = llama3-8b, falcon-7b\nseq = 16\n' > "$TMP/models.ini"
expect models_shapes 0 'naive/B1/H32/G8/N16/M16/d128/full/bhnd/T1' -- "$HR_BIN" sweep "$TMP/models.ini" --dry-run
expect models_shapes2 0 'naive/B1/H71/G1/N16/M16/d64/full/bhnd/T1' -- "$HR_BIN" sweep "$TMP/models.ini" --dry-run
expect models_count 0 '^2 points: 2 to run' -- "$HR_BIN" sweep "$TMP/models.ini" --dry-run
printf '[sweep]\nmodels = llama3-8b\nd_head = 64\n' > "$TMP/models_both.ini"
expect models_and_shape 2 'models_both.ini:3: give models or d_head, not both' -- "$HR_BIN" sweep "$TMP/models_both.ini" --dry-run
printf '[sweep]\nmodels = llama9-1t\n' > "$TMP/models_unknown.ini"
expect models_unknown 2 "models_unknown.ini:2: models: unknown model 'llama9-1t' \\(presets: gpt2-small, .*falcon-7b, .*phi3-mini\\)" \
    -- "$HR_BIN" sweep "$TMP/models_unknown.ini" --dry-run
printf '[sweep]\nmodels = llama3-8b\nmodels_file = %s/nosuch.ini\n' "$TMP" > "$TMP/models_nofile.ini"
expect models_nofile 2 'models_nofile.ini:2: models: .*nosuch.ini: cannot read' -- "$HR_BIN" sweep "$TMP/models_nofile.ini" --dry-run
printf '[sweep]\nmode = layer\nkernels = flash\nmodels = gpt2-small\nseq = 64\n' > "$TMP/models_layer.ini"
expect models_layer 0 'layer/flash/.*/D768/H12/G12/d64/' -- "$HR_BIN" sweep "$TMP/models_layer.ini" --dry-run
np=30; "$HR_BIN" list | grep -q '^blas ' || np=20 # 5 models x 2 N x flash, gqa (, blas)
expect models_config 0 "^$np points: $np to run, 0 skipped" -- "$HR_BIN" sweep configs/models.ini --dry-run --no-wisdom

# SIGINT: a sweep of slow-ish points interrupted once the first row is on disk.
sout=$TMP/sig
interrupt_sweep INT "$sout" sigint
if command -v python3 >/dev/null; then
    expect sigint_rows 0 'rows [1-9]' -- python3 -c "
import json; d = json.load(open('$sout/results.json'))
assert d['sweep']['interrupted'] is True
n = len({(b['name'], b.get('pass')) for b in d['benchmarks'] if b['run_type'] == 'iteration'})
lines = sum(1 for _ in open('$sout/rows.jsonl'))
assert n == d['sweep']['rows'] == lines >= 1, (n, d['sweep']['rows'], lines)
assert lines < 20, 'the sweep ended before the signal'
print('rows', n)"
    # Resumed, the rest is measured and no point is recorded twice.
    expect sigint_resume 0 '20 rows \([0-9]+ new, [1-9][0-9]* resumed\)' -- "$HR_BIN" sweep --resume "$sout" --min-time 0.001
    expect sigint_resume_once 0 '^20 distinct$' -- python3 -c "
import json; keys = [json.loads(l)['key'] for l in open('$sout/rows.jsonl')]
assert len(keys) == len(set(keys)), 'a point recorded twice'
print(len(set(keys)), 'distinct')"
else
    skip sigint_rows "no python3"
fi

# No row twice, in any mode: a second sweep into a finished directory is refused (it
# would append every row again), --resume drops duplicate rows with a note, and row names
# are unique in results.json, results.csv and rows.jsonl (attention and layer sweeps,
# passes, interleaved or not).
cat > "$TMP/unique_rows.py" <<'EOF'
# DIR: every row name once in results.json and .csv, every key once in rows.jsonl
import csv, json, sys
d = json.load(open(sys.argv[1] + '/results.json'))
names = {b['name'] for b in d['benchmarks'] if b['run_type'] == 'iteration'}
rows = list(csv.DictReader(open(sys.argv[1] + '/results.csv')))
assert len(rows) == len({r['name'] for r in rows}) == d['sweep']['rows'], ('csv names', len(rows))
keys = [json.loads(l)['key'] for l in open(sys.argv[1] + '/rows.jsonl')]
assert len(keys) == len(set(keys)) == d['sweep']['rows'], ('rows.jsonl keys', len(keys), len(set(keys)))
assert names == {r['name'] for r in rows}, 'json and csv differ'
print(len(rows), 'unique rows')
EOF
lines_before=$(wc -l < "$out/rows.jsonl")
expect rerun_refused 2 "^headroom sweep: --out: .* already holds a sweep's rows: --resume .* finishes it, or give a new directory$" -- "$HR_BIN" sweep "$cfg" --out "$out"
[ "$(wc -l < "$out/rows.jsonl")" -eq "$lines_before" ] && ok rerun_rows_kept || fail rerun_rows_kept "rows.jsonl changed"
dup=$TMP/dup
mkdir -p "$dup"
cp "$out"/*.ini "$dup"/
cat "$out/rows.jsonl" "$out/rows.jsonl" > "$dup/rows.jsonl"
expect resume_dedup 0 "rows.jsonl: $lines_before duplicate rows dropped" -- "$HR_BIN" sweep --resume "$dup"
expect resume_dedup_rows 0 "^$lines_before unique rows$" -- python3 "$TMP/unique_rows.py" "$dup"
expect resume_dedup_once 0 "$lines_before rows \(0 new, $lines_before resumed\)" -- "$HR_BIN" sweep --resume "$dup"
expect resume_dedup_quiet 0 "" -- bash -c "! '$HR_BIN' sweep --resume '$dup' 2>&1 | grep -q 'duplicate row'"
printf '[sweep]\nmode = layer\nkernels = flash\nd_model = 64\nd_head = 32\nseq = 32, 64\npasses = 2\nthreads = 1\nreps = 2\nmin_time = 0\nwarmup = 0\n' > "$TMP/lpass.ini"
expect layer_passes 0 '16 rows \(4 new' -- "$HR_BIN" sweep "$TMP/lpass.ini" --out "$TMP/lpass"
expect layer_passes_unique 0 '^16 unique rows$' -- python3 "$TMP/unique_rows.py" "$TMP/lpass"
expect layer_passes_names 0 'layer/flash/own/B1/N64/D64/H2/G2/d32/full/T1/pass2/total' -- cat "$TMP/lpass/results.csv"
expect layer_passes_crossover 0 '^flash,64,64,' -- cat "$TMP/lpass/crossover.csv"
expect layer_passes_resume 0 '16 rows \(0 new, 16 resumed\)' -- "$HR_BIN" sweep --resume "$TMP/lpass"
printf '[sweep]\nkernels = naive, flash\nheads = 2\nd_head = 16\nseq = 32, 64\npasses = 3\nthreads = 1\nreps = 2\nmin_time = 0\nwarmup = 0\n' > "$TMP/apass.ini"
for mode in interleave no-interleave; do
    expect "passes_$mode" 0 '12 rows \(12 new' -- "$HR_BIN" sweep "$TMP/apass.ini" --out "$TMP/apass-$mode" --$mode
    expect "passes_${mode}_unique" 0 '^12 unique rows$' -- python3 "$TMP/unique_rows.py" "$TMP/apass-$mode"
done

# A memory budget for one point at a time: the interleaved points take turns with their
# tensors (regenerated, the same values) and every row is measured and checked.
printf '[sweep]\nkernels = naive, flash\nheads = 2\nd_head = 16\nseq = 64, 128, 256\nthreads = 1\nreps = 3\nmin_time = 0\nwarmup = 0\nprobe = false\n' > "$TMP/budget.ini"
expect budget_regenerates 0 'tensors regenerated [0-9]+ times' -- "$HR_BIN" sweep "$TMP/budget.ini" --out "$TMP/budget" --max-mem 400K --check
expect budget_rows 0 '6 rows \(0 new, 6 resumed\), 0 skipped, 0 failed checks' -- "$HR_BIN" sweep --resume "$TMP/budget"
# --quiet: no warning line on stderr, the warnings still in results.json's context.
# More threads than CPUs always warns (oversubscribed).
over=$(( $(getconf _NPROCESSORS_ONLN) + 1 ))
printf '[sweep]\nkernels = flash\nheads = 2\nd_head = 16\nseq = 32\nthreads = %d\nreps = 2\nmin_time = 0.001\nwarmup = 0\n' "$over" > "$TMP/over.ini"
expect quiet_loud 0 'warning: .*oversubscribed' -- "$HR_BIN" sweep "$TMP/over.ini" --out "$TMP/loud"
"$HR_BIN" sweep "$TMP/over.ini" --out "$TMP/quiet" --quiet > "$TMP/quiet.out" 2> "$TMP/quiet.err"
! grep -qi 'warn' "$TMP/quiet.err" && ok quiet_stderr || fail quiet_stderr "$(grep -i 'warn' "$TMP/quiet.err" | head -n 1)"
expect quiet_count 0 '^headroom sweep: --quiet: [1-9][0-9]* findings .* kept in summary.md' -- cat "$TMP/quiet.err"
expect quiet_context 0 'oversubscribed' -- python3 -c "
import json; print(json.load(open('$TMP/quiet/results.json'))['context']['warnings'])"
expect quiet_table 0 '^shape +flash' -- cat "$TMP/quiet.out"
expect run_quiet 0 '' -- bash -c "'$HR_BIN' run --kernel flash --heads 2 --seq 32 --d-head 16 --threads $over --reps 2 --min-time 0.001 --quiet --format json 2>'$TMP/rq.err' | grep -q oversubscribed && ! grep -qi 'warn' '$TMP/rq.err'"
# cpu_time: the process CPU time, present and finite in every row (never a timing assertion).
expect cpu_time 0 '^cpu_time ok' -- python3 -c "
import json, math
d = json.load(open('$out/results.json'))
assert all(isinstance(b['cpu_time'], (int, float)) and math.isfinite(b['cpu_time']) for b in d['benchmarks'])
r = [json.loads(l)['result'] for l in open('$out/rows.jsonl')]
assert all(len(x['rep_cpu']) == len(x['rep_time']) for x in r)
print('cpu_time ok')"

finish
