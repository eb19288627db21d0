# sh_json.sh — every JSON file and JSON stdout headroom writes parses with Python's json
# (strict: UTF-8, no control characters in strings, no NaN), and every markdown table has
# the cells and rows it should, also when names hold newlines, '|' and control characters.
SUITE=json
. "$(dirname "$0")/lib.sh"
F=tests/fixtures/compare
if ! command -v python3 > /dev/null; then
    ok "all (skipped: no python3)"
    finish
    exit
fi

# A small sweep whose description holds UTF-8, quotes and a tab; the other commands small.
printf '[sweep]\ndescription = caf\303\251 "quoted" \\ tab\there\nkernels = naive, flash\nheads = 1\nd_head = 8\nseq = 16, 32\nthreads = 1\nreps = 2\nmin_time = 0\nwarmup = 0\nprobe = false\n' > "$TMP/j.ini"
small='--reps 1 --min-time 0 --warmup 0 --no-wisdom'
step() { # name, status wanted, command...: runs it, stdout to $TMP/name.out
    local name=$1 want=$2
    shift 2
    timeout 120 "$@" > "$TMP/$name.out" 2> "$TMP/$name.err"
    local rc=$?
    [ "$rc" = "$want" ] && ok "$name" || fail "$name" "exit $rc, expected $want: $(tail -n 1 "$TMP/$name.err")"
}
step sweep 0 "$B" sweep "$TMP/j.ini" --out "$TMP/sw"
step run_json 0 "$B" run --kernel flash --seq 16 --heads 2 --d-head 16 --threads 1 --no-probe $small --format json
step list_json 0 "$B" list --format json
step kvcache_json 0 "$B" kvcache --format json
step decode_loop_json 0 "$B" decode-loop --prompt 8 --tokens 2 --heads 2 --kv-heads 2 --d-head 16 --layers 1 --format json
step layer_json 0 "$B" layer --d-model 32 --d-head 16 --seq 16 --threads 1 --reps 1 --min-time 0 --format json
step roofline_quick 0 "$B" roofline --quick --threads 1 --out "$TMP/ceilings.json"
step compare_json 1 "$B" compare $F/base.json $F/slow.json --format json
step compare_markdown 1 "$B" compare $F/base.json $F/slow.json --format markdown
step report 0 "$B" report "$TMP/sw" tests/fixtures/report/intel-xeon-8480-16c --no-charts --out "$TMP/rep"

# Names a results file may hold that a table must survive: newline, '|', tab, a control
# character, a backquote, non-ASCII.
python3 - "$F/base.json" "$TMP/evil.json" << 'EOF'
import json, sys
d = json.load(open(sys.argv[1], encoding="utf-8"))
evil = ["a\nb", "p|q", "t\tu", "c\x01d", "`tick`", "caf\u00e9 \u2603"]
names = sorted({b.get("run_name", b["name"]) for b in d["benchmarks"]})
ren = {n: n + "/" + evil[i % len(evil)] for i, n in enumerate(names)}
for b in d["benchmarks"]:
    key = b.get("run_name", b["name"])
    b["name"] = b["name"].replace(key, ren[key])
    if "run_name" in b:
        b["run_name"] = ren[key]
json.dump(d, open(sys.argv[2], "w", encoding="utf-8"), ensure_ascii=False)
EOF
step compare_evil_markdown 0 "$B" compare "$TMP/evil.json" "$TMP/evil.json" --format markdown
step compare_evil_json 0 "$B" compare "$TMP/evil.json" "$TMP/evil.json" --format json

check=$(python3 - "$TMP" << 'EOF'
import json, os, re, sys
tmp = sys.argv[1]
def nonum(x):
    raise ValueError("NaN/Infinity is not JSON: " + x)
def load(path, text=None):
    if text is None:
        text = open(path, encoding="utf-8", errors="strict").read()
    return json.loads(text, parse_constant=nonum)
bad, n = [], 0
files = [os.path.join(tmp, f) for f in ("run_json.out", "list_json.out", "kvcache_json.out",
         "decode_loop_json.out", "layer_json.out", "compare_json.out", "compare_evil_json.out",
         "ceilings.json")]
for root, _, fs in os.walk(tmp):
    files += [os.path.join(root, f) for f in fs if f.endswith(".json") and "evil" not in f]
for f in sorted(set(files)):
    try:
        load(f)
        n += 1
    except Exception as e:
        bad.append("%s: %s" % (f, e))
for root, _, fs in os.walk(tmp):
    for f in fs:
        if f.endswith(".jsonl"):
            for i, line in enumerate(open(os.path.join(root, f), encoding="utf-8")):
                try:
                    load(None, line)
                    n += 1
                except Exception as e:
                    bad.append("%s:%d: %s" % (f, i + 1, e))
sw = json.dumps(load(os.path.join(tmp, "sw", "results.json")), ensure_ascii=False)
if "caf\u00e9 \\\"quoted\\\"" not in sw:
    bad.append("the config's description did not reach results.json intact")

def cells(line):
    return len(re.split(r"(?<!\\)\|", line.strip())) - 2
def tables(path):
    out, cur = [], []
    for line in open(path, encoding="utf-8"):
        if line.startswith("|"):
            cur.append(line)
        elif cur:
            out.append(cur)
            cur = []
    if cur:
        out.append(cur)
    return out
def check_tables(path, want_rows):
    ts = tables(path)
    got = []
    for t in ts:
        w = cells(t[0])
        for line in t:
            if cells(line) != w:
                bad.append("%s: row with %d cells, header %d: %r" % (path, cells(line), w, line))
        got.append(len(t) - 2)
    if want_rows is not None and got != want_rows:
        bad.append("%s: table rows %s, expected %s" % (path, got, want_rows))
cmp = load(os.path.join(tmp, "compare_json.out"))
check_tables(os.path.join(tmp, "compare_markdown.out"), [len(cmp["rows"]) + 1])
evil = load(os.path.join(tmp, "compare_evil_json.out"))
check_tables(os.path.join(tmp, "compare_evil_markdown.out"), [len(evil["rows"]) + 1])
if not any("\n" in r["name"] for r in evil["rows"]):
    bad.append("compare JSON lost the newline in a name")
check_tables(os.path.join(tmp, "rep", "report.md"), None)
print("%d documents, %d bad" % (n, len(bad)))
for b in bad[:5]:
    print(b)
EOF
)
if printf '%s' "$check" | head -n 1 | grep -Eq '^[1-9][0-9]* documents, 0 bad$'; then
    ok "every_json_parses_every_table_holds ($(printf '%s' "$check" | head -n 1))"
else
    fail every_json_parses_every_table_holds "$(printf '%s' "$check" | tr '\n' ' ')"
fi
finish
