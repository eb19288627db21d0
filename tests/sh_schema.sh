#!/usr/bin/env bash
# sh_schema.sh — every kind of JSON file headroom writes validates against its schema in
# docs/reference/*.schema.json (scripts/check-schema.py: the jsonschema module where it is
# installed, else the script's own validator of the subset the schemas use; the own one is
# run too, so both are tested), and doctored files (a required field gone, a string where a
# number belongs) are refused.
SUITE=schema
source "$(dirname "$0")/lib.sh"
CHK=scripts/check-schema.py
export HEADROOM_RESULTS=$TMP/results
cfg=$TMP/tiny.ini
printf '[sweep]\nkernels = naive, flash\nheads = 2\nd_head = 16\nseq = 16, 32\nthreads = 1\nreps = 3\nmin_time = 0\nwarmup = 0\n' > "$cfg"
small=(--heads 2 --d-head 16 --seq 32 --threads 1 --reps 3 --min-time 0 --warmup 0)

# Write one file of each kind (tiny shapes: what is checked is the shape of the files).
"$HR_BIN" run --kernel flash "${small[@]}" --check --format json > "$TMP/run.json" 2>/dev/null
"$HR_BIN" sweep "$cfg" --out "$TMP/sweep" --check > /dev/null 2>&1
"$HR_BIN" sweep "$cfg" --shard 1/2 --out "$TMP/sh1" > /dev/null 2>&1
"$HR_BIN" sweep "$cfg" --shard 2/2 --out "$TMP/sh2" > /dev/null 2>&1
"$HR_BIN" merge "$TMP/sh1" "$TMP/sh2" --out "$TMP/merged" > /dev/null 2>&1
"$HR_BIN" layer --seq 32 --d-model 64 --heads 2 --threads 1 --reps 3 --min-time 0 --format json > "$TMP/layer.json" 2>/dev/null
HEADROOM_WISDOM=$TMP/wisdom.json "$HR_BIN" tune --kernel flash --heads 2 --d-head 16 --seq 32 --threads 1 \
    --budget 0.2 --min-time 0.001 > /dev/null 2>&1
"$HR_BIN" roofline --quick --threads 1 --out "$TMP/ceilings.json" > /dev/null 2>&1
"$HR_BIN" compare "$TMP/sweep/results.json" "$TMP/sweep/results.json" --format json > "$TMP/compare.json" 2>/dev/null
"$HR_BIN" ab "$HR_BIN" "$HR_BIN" "$cfg" --reps 2 --rounds 1 --out "$TMP/ab" > /dev/null 2>&1
"$HR_BIN" version --format json > "$TMP/version.json"

# check NAME SCHEMA FILE...: valid under the default validator and under the fallback.
check() {
    local name=$1 schema=$2 f out
    shift 2
    for f in "$@"; do
        [ -s "$f" ] || { fail "$name" "$f was not written"; return; }
    done
    expect "$name" 0 '' -- python3 $CHK "$schema" "$@"
    expect "$name-fallback" 0 '' -- python3 $CHK --fallback "$schema" "$@"
}
check results results "$TMP/run.json" "$TMP/sweep/results.json" "$TMP/merged/results.json" \
    "$TMP/layer.json" "$TMP/ab/base.json" "$TMP/ab/new.json"
check rows rows "$TMP/sweep/rows.jsonl" "$TMP/sh1/rows.jsonl" "$TMP/merged/rows.jsonl"
check reps 'rows#/$defs/rep' "$TMP/sweep/reps.jsonl" "$TMP/sh1/reps.jsonl"
check shard shard "$TMP/sh1/shard.json" "$TMP/sh2/shard.json"
check wisdom wisdom "$TMP/wisdom.json"
check ceilings ceilings "$TMP/ceilings.json"
check compare compare "$TMP/compare.json" "$TMP/ab/ab.json"
check context 'results#/$defs/context' "$TMP/version.json"
# Every schema file is one the cases above use.
for s in docs/reference/*.schema.json; do
    n=$(basename "$s" .schema.json)
    grep -q "^check [a-z]* $n " "$0" || grep -q "^check [a-z]* '$n#" "$0" || fail "schema-used-$n" "$s is validated by no case"
done

# Doctored files: each refused, with the field named, by both validators.
doctor() { # doctor OUT IN PYTHON-STATEMENT (d is the document)
    python3 -c 'import json,sys
d = json.load(open(sys.argv[1]))
exec(sys.argv[3])
json.dump(d, open(sys.argv[2], "w"))' "$2" "$1" "$3"
}
doctor "$TMP/bad-str.json" "$TMP/sweep/results.json" 'd["benchmarks"][0]["real_time"] = "fast"'
doctor "$TMP/bad-missing.json" "$TMP/sweep/results.json" 'del d["context"]["machine"]'
doctor "$TMP/bad-counter.json" "$TMP/run.json" 'd["benchmarks"][0]["GFLOPS_note"] = "high"'
doctor "$TMP/bad-wisdom.json" "$TMP/wisdom.json" 'del d["entries"][0]["build_id"]'
doctor "$TMP/bad-compare.json" "$TMP/compare.json" 'd["rows"][0]["verdict"] = "fine"'
head -n 1 "$TMP/sweep/rows.jsonl" | python3 -c 'import json,sys
d = json.loads(sys.stdin.read()); d["result"]["flops"] = "many"; print(json.dumps(d))' > "$TMP/bad-rows.jsonl"
for v in "" --fallback; do
    t=${v:+-fallback}
    expect "refuses-string-for-number$t" 1 'benchmarks\[0\]\.real_time' -- python3 $CHK $v results "$TMP/bad-str.json"
    expect "refuses-missing-field$t" 1 "context: 'machine' is a required property" -- python3 $CHK $v results "$TMP/bad-missing.json"
    expect "refuses-string-counter$t" 1 'GFLOPS_note' -- python3 $CHK $v results "$TMP/bad-counter.json"
    expect "refuses-rows-line$t" 1 'bad-rows.jsonl:1: .*result\.flops' -- python3 $CHK $v rows "$TMP/bad-rows.jsonl"
    expect "refuses-wisdom$t" 1 "'build_id' is a required property" -- python3 $CHK $v wisdom "$TMP/bad-wisdom.json"
    expect "refuses-compare$t" 1 'rows\[0\]\.verdict' -- python3 $CHK $v compare "$TMP/bad-compare.json"
done
# The fallback refuses a schema keyword it does not implement instead of skipping it.
printf '{"type": "object", "patternProperties": {"^x": {"type": "string"}}}\n' > "$TMP/odd.schema.json"
expect fallback-refuses-keyword 1 'patternProperties.*not in the fallback' \
    -- python3 $CHK --fallback "$TMP/odd.schema.json" "$TMP/run.json"
finish
