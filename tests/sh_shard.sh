# sh_shard.sh — sharded sweeps and merge: the shards' points are the sweep's points, each
# once, for N = 1..4; the merged results set is what one unsharded sweep writes; a shard
# resumes like any sweep; report and plot read the merge. (Bad input: sh_hostile.sh.)
SUITE=shard
. "$(dirname "$0")/lib.sh"

keys() { grep -Ev '^[0-9]+ points: ' | awk '{print $1}'; }

# The union of the shards' points is exactly the unsharded point list, nothing twice.
"$HR_BIN" sweep configs/ci.ini --dry-run 2> /dev/null | keys | sort > "$TMP/all.keys"
[ -s "$TMP/all.keys" ] && ok union_baseline || fail union_baseline "no points listed"
for n in 1 2 3 4; do
    : > "$TMP/union.keys"
    for k in $(seq 1 "$n"); do
        "$HR_BIN" sweep configs/ci.ini --dry-run --shard "$k/$n" 2> /dev/null | keys >> "$TMP/union.keys"
    done
    sort "$TMP/union.keys" > "$TMP/union.sorted"
    if ! cmp -s "$TMP/all.keys" "$TMP/union.sorted"; then
        fail "union_n$n" "$(diff "$TMP/all.keys" "$TMP/union.sorted" | head -n 3 | tr '\n' ' ')"
    elif [ -n "$(uniq -d "$TMP/union.sorted")" ]; then
        fail "union_n$n" "a point in two shards"
    else
        ok "union_n$n"
    fi
done
# The same split on every run (a job array's tasks compute it independently).
a=$("$HR_BIN" sweep configs/ci.ini --dry-run --shard 2/3 2> /dev/null | md5sum)
b=$("$HR_BIN" sweep configs/ci.ini --dry-run --shard 2/3 2> /dev/null | md5sum)
[ "$a" = "$b" ] && ok split_deterministic || fail split_deterministic "two runs of shard 2/3 listed different points"
# More shards than points: the extra shards are empty, not an error.
printf '[sweep]\nkernels = naive\nheads = 1\nd_head = 8\nseq = 16\n' > "$TMP/one.ini"
expect empty_shard 0 '^0 points: 0 to run' -- "$HR_BIN" sweep "$TMP/one.ini" --dry-run --shard 3/3

# A tiny real sweep: unsharded, and in 3 shards merged.
cfg=$TMP/tiny.ini
sweep_config "$cfg" "kernels=naive, flash, decode" "seq=8, 32" "causal=false, true" reps=2 min_time=0 probe=false
"$HR_BIN" sweep "$cfg" --out "$TMP/whole" 2> /dev/null
for k in 1 2 3; do "$HR_BIN" sweep "$cfg" --shard $k/3 --out "$TMP/s$k" 2> /dev/null; done
[ -s "$TMP/s1/shard.json" ] && ok shard_manifest || fail shard_manifest "no shard.json"
expect merge 0 'merge: 3 shards, [0-9]+ rows -> ' -- "$HR_BIN" merge "$TMP/s3" "$TMP/s1" "$TMP/s2" --out "$TMP/merged"
for f in results.json results.csv rows.jsonl tiny.ini; do
    [ -s "$TMP/merged/$f" ] && ok "merged_$f" || fail "merged_$f" "missing or empty"
done
if command -v python3 > /dev/null; then
    expect merged_equals_whole 0 '^same [0-9]+ rows' -- python3 -c "
import json
w = json.load(open('$TMP/whole/results.json')); m = json.load(open('$TMP/merged/results.json'))
names = lambda d: [b['name'] for b in d['benchmarks']]
assert names(w) == names(m), (names(w), names(m))
assert w['skipped'] == m['skipped'], (w['skipped'], m['skipped'])
assert w['sweep']['rows'] == m['sweep']['rows']
assert [l.split(',')[0] for l in open('$TMP/whole/results.csv')] == [l.split(',')[0] for l in open('$TMP/merged/results.csv')]
assert sorted(json.loads(l)['key'] for l in open('$TMP/whole/rows.jsonl')) == sorted(json.loads(l)['key'] for l in open('$TMP/merged/rows.jsonl'))
c = m['context']
assert c['shards'] == 3 and c['hosts'] and 'shard' not in c, c
assert c['config_hash'] == json.load(open('$TMP/s1/results.json'))['context']['config_hash']
assert json.load(open('$TMP/s2/results.json'))['context']['shard'] == '2/3'
print('same', m['sweep']['rows'], 'rows')"
else
    ok "merged_equals_whole (skipped: no python3)"
fi
expect report_on_merge 0 '1 machine' -- "$HR_BIN" report "$TMP/merged" --out "$TMP/rep" --no-charts
if command -v "${HEADROOM_GNUPLOT:-gnuplot}" > /dev/null; then
    expect plot_on_merge 0 'chart\(s\) in' -- "$HR_BIN" plot "$TMP/merged" --out "$TMP/merged/plots"
else
    ok "plot_on_merge (skipped: no gnuplot)"
fi

# A shard resumes like any sweep: --resume DIR takes K/N from its shard.json.
head -n 1 "$TMP/s1/rows.jsonl" > "$TMP/s1.rows" && cp "$TMP/s1.rows" "$TMP/s1/rows.jsonl"
expect shard_resume 0 'shard 1/3: .*resuming' -- "$HR_BIN" sweep --resume "$TMP/s1"
expect merge_after_resume 0 'merge: 3 shards' -- "$HR_BIN" merge "$TMP/s1" "$TMP/s2" "$TMP/s3" --out "$TMP/merged2"
cmp -s <(cut -d, -f1 "$TMP/merged/results.csv") <(cut -d, -f1 "$TMP/merged2/results.csv") \
    && ok resume_same_rows || fail resume_same_rows "the resumed shard's merge lists other rows"

finish
