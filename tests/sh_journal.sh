# sh_journal.sh — every repetition journaled (reps.jsonl): a sweep killed (-9, INT, TERM) at
# a random moment of its rounds and resumed has every point once, the config's repetitions
# per point, and every repetition journaled before the kill, as measured; a torn last line
# is dropped with a note; a journal of another binary, config or --reps is refused.
SUITE=journal
. "$(dirname "$0")/lib.sh"

if ! command -v python3 >/dev/null; then
    skip journal "no python3"
    exit 0
fi

# 6 points x 6 rounds of >= 5 ms: a sweep of a second or two, interleaved.
cfg=$TMP/j.ini
sweep_config "$cfg" kernels="naive, blocked" "seq=32, 64, 128" reps=6 min_time=0.005 probe=false

# counts.py DIR: "KEY REP TIME" for every complete line of DIR/reps.jsonl.
cat > "$TMP/journaled.py" <<'EOF'
import json, sys
t = open(sys.argv[1] + "/reps.jsonl").read()
for l in t.split("\n")[:-1]:  # a last line without its newline is not a repetition
    d = json.loads(l)
    print(d["key"], d["rep"], repr(d["time_s"]))
EOF
# check.py DIR BEFORE NPTS REPS: the resumed sweep is whole and kept what BEFORE lists.
cat > "$TMP/check.py" <<'EOF'
import json, sys
from collections import Counter
d, before, npts, reps = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
rows = [json.loads(l) for l in open(d + "/rows.jsonl")]
keys = [r["key"] for r in rows]
assert len(keys) == len(set(keys)) == npts, ("every point once", len(keys), len(set(keys)), npts)
times = {r["key"]: r["result"]["rep_time"] for r in rows}
for k, v in times.items():
    assert len(v) == reps, ("repetitions of", k, len(v), reps)
res = json.load(open(d + "/results.json"))
it = Counter(b["name"] for b in res["benchmarks"] if b["run_type"] == "iteration")
assert len(it) == npts and set(it.values()) == {reps}, ("results.json", it)
assert res["sweep"]["interrupted"] is False
# The journal after the resume: each repetition of each point exactly once.
j = Counter()
for l in open(d + "/reps.jsonl"):
    x = json.loads(l)
    j[(x["key"], x["rep"])] += 1
assert set(j.values()) == {1} and len(j) == npts * reps, ("journal", len(j), max(j.values()))
# Every repetition journaled before the kill is in the final row, as measured.
kept = 0
for l in open(before):
    k, r, t = l.split()
    assert times[k][int(r)] == float(t), ("repetition changed", k, r, t, times[k][int(r)])
    kept += 1
print("kept", kept, "of", npts * reps)
EOF

# kill_at NAME SIGNAL SEED [FLAGS]: starts the sweep, waits until it has journaled a number
# of repetitions drawn from SEED (1..34 of 36) and a moment more (0..9 ms, so the signal
# lands anywhere in a repetition or between two), sends SIGNAL, resumes, checks.
kill_at() {
    local name=$1 sig=$2 seed=$3 out=$TMP/$1 pid rc at ms
    shift 3
    RANDOM=$seed
    at=$((1 + RANDOM % 34)) ms=$((RANDOM % 10))
    "$HR_BIN" sweep "$cfg" --out "$out" "$@" > "$out.out" 2> "$out.err" &
    pid=$!
    for _ in $(seq 1 6000); do # up to 60 s: slow under ASan
        [ -f "$out/reps.jsonl" ] && [ "$(wc -l < "$out/reps.jsonl")" -ge "$at" ] && break
        kill -0 "$pid" 2>/dev/null || break
        sleep 0.01
    done
    sleep "0.00$ms"
    kill -"$sig" "$pid" 2>/dev/null
    { wait "$pid"; } 2>/dev/null # no "Killed" from the shell
    rc=$?
    case $sig in
    9) [ "$rc" -eq 137 ] || [ "$rc" -eq 0 ] ;; # 0: it finished before the kill
    *) [ "$rc" -eq 130 ] || [ "$rc" -eq 0 ] ;;
    esac && ok "${name}_status" || fail "${name}_status" "exit $rc after SIG$sig: $(tail -n 1 "$out.err")"
    python3 "$TMP/journaled.py" "$out" > "$out.before"
    local n
    n=$(wc -l < "$out.before")
    expect "${name}_resume" 0 'rows \(' -- "$HR_BIN" sweep --resume "$out"
    expect "${name}_kept" 0 "^kept $n of 36" -- python3 "$TMP/check.py" "$out" "$out.before" 6 6
    echo "     $name: SIG$sig after >= $at repetitions + $ms ms: $n of 36 journaled, exit $rc" >&2
}

for seed in 1 2 3 4 5 6; do kill_at kill9_$seed 9 "$seed"; done
kill_at sigint INT 7
kill_at sigterm TERM 8
kill_at kill9_sequential 9 9 --no-interleave

# A resume that reads repetitions back says so; one that measured nothing more says nothing.
out=$TMP/noted
"$HR_BIN" sweep "$cfg" --out "$out" > /dev/null 2>&1 &
pid=$!
for _ in $(seq 1 1200); do [ -s "$out/reps.jsonl" ] && break; sleep 0.05; done
kill -INT "$pid"
wait "$pid"
cp -r "$out" "$TMP/noted_copy"
# hand-made cases from the interrupted sweep: a torn last line, another binary, --reps
cp -r "$out" "$TMP/torn"
printf '{"key":"naive/B1' >> "$TMP/torn/reps.jsonl"
n=$(wc -l < "$TMP/torn/reps.jsonl")
expect torn_note 0 "reps.jsonl:$((n + 1)): incomplete last line dropped" -- "$HR_BIN" sweep --resume "$TMP/torn"
expect torn_gone 0 '^ok$' -- python3 -c "
import json; [json.loads(l) for l in open('$TMP/torn/reps.jsonl')]; print('ok')"
expect read_back_note 0 "repetitions of [0-9]+ unfinished points? read back from .*/noted/reps.jsonl" \
    -- "$HR_BIN" sweep --resume "$out"
expect finished_no_note 0 '' -- bash -c "! '$HR_BIN' sweep --resume '$out' 2>&1 | grep -q 'read back'"

# A new sweep into a directory with repetitions but no row yet is refused, as with rows.
rm -f "$TMP/noted_copy/rows.jsonl"
# doctor NAME [SED]: $TMP/NAME, a copy of the noted sweep whose reps.jsonl the sed script edits.
doctor() {
    cp -r "$TMP/noted_copy" "$TMP/$1"
    [ -z "${2:-}" ] || sed -i "$2" "$TMP/$1/reps.jsonl"
}
# refused CASE NAME SED PATTERN [ARGS...]: --resume of doctor NAME SED exits 2 with PATTERN.
refused() {
    local case=$1 name=$2 script=$3 pat=$4
    shift 4
    doctor "$name" "$script"
    expect "$case" 2 "$pat" -- "$HR_BIN" sweep --resume "$TMP/$name" "$@"
}
expect out_refused 2 "^headroom sweep: --out: .*/noted_copy/reps.jsonl already holds a sweep's repetitions: --resume .*/noted_copy finishes it, or give a new directory$" \
    -- "$HR_BIN" sweep "$cfg" --out "$TMP/noted_copy"
refused other_binary other_bin '1s/"build_id":"[0-9a-f]*"/"build_id":"0123456789abcdef"/' \
    '^headroom sweep: --resume: .*/reps.jsonl:1: repetitions measured by another binary \(build_id 0123456789abcdef, this one [0-9a-f]+\)'
refused other_config other_cfg '1s/"config_hash":"[0-9a-f]*"/"config_hash":"fedcba9876543210"/' \
    '^headroom sweep: --resume: .*/reps.jsonl:1: repetitions of another config'
refused other_reps other_reps '' \
    '^headroom sweep: --resume: .*/reps.jsonl:[0-9]+: measured with 6 repetitions a point, not 4 \(--reps 6 resumes it\)$' --reps 4
refused garbage_line garbage '1s/.*/garbage/' '^headroom sweep: .*/garbage/reps.jsonl:1: not a headroom repetition$'
refused bad_rep_field badrep '1s/"rep":0/"rep":-1/' "^headroom sweep: .*/badrep/reps.jsonl:1: not a headroom repetition: field 'rep'$"
doctor twice
head -n 1 "$TMP/twice/reps.jsonl" >> "$TMP/twice/reps.jsonl"
expect rep_twice 2 '^headroom sweep: .*/twice/reps.jsonl:[0-9]+: repetition 0 of .* where repetition [1-9][0-9]* comes next' \
    -- "$HR_BIN" sweep --resume "$TMP/twice"
doctor nul
printf '\000\n' >> "$TMP/nul/reps.jsonl"
expect nul_byte 2 '^headroom sweep: .*/nul/reps.jsonl:[0-9]+: ' -- "$HR_BIN" sweep --resume "$TMP/nul"
doctor utf8
printf '\377\n' >> "$TMP/utf8/reps.jsonl"
expect bad_utf8 2 '^headroom sweep: .*/utf8/reps.jsonl:[0-9]+: ' -- "$HR_BIN" sweep --resume "$TMP/utf8"

# HEADROOM_JOURNAL_SYNC: seconds between fdatasyncs, 0 after every repetition, off none.
expect sync_every_rep 0 '6 rows \(6 new' -- env HEADROOM_JOURNAL_SYNC=0 "$HR_BIN" sweep "$cfg" --out "$TMP/s0"
[ "$(wc -l < "$TMP/s0/reps.jsonl")" -eq 36 ] && ok sync_every_rep_lines || fail sync_every_rep_lines "$(wc -l < "$TMP/s0/reps.jsonl")"
# Killed between a point's last repetition and its row: the row is made from the journal,
# nothing measured again.
cp -r "$TMP/s0" "$TMP/norow"
sed -i '$d' "$TMP/norow/rows.jsonl"
python3 "$TMP/journaled.py" "$TMP/norow" > "$TMP/norow.before"
expect norow_resume 0 '6 rows \(1 new, 5 resumed\)' -- "$HR_BIN" sweep --resume "$TMP/norow"
expect norow_kept 0 '^kept 36 of 36' -- python3 "$TMP/check.py" "$TMP/norow" "$TMP/norow.before" 6 6
expect sync_off 0 '6 rows \(6 new' -- env HEADROOM_JOURNAL_SYNC=off "$HR_BIN" sweep "$cfg" --out "$TMP/soff"
[ ! -e "$TMP/soff/reps.jsonl" ] && ok sync_off_no_file || fail sync_off_no_file "reps.jsonl written"
expect sync_bad 2 "^headroom sweep: HEADROOM_JOURNAL_SYNC: expected seconds >= 0 or off, got 'soon'$" \
    -- env HEADROOM_JOURNAL_SYNC=soon "$HR_BIN" sweep "$cfg" --out "$TMP/sbad"

finish
