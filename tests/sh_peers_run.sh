# sh_peers_run.sh — the peers run on tiny shapes: example_naive and a second plugin built
# here (another library name and version) stand in for the peers. A config's
# kernels = plugins expansion and name? (an absent peer skipped with its reason), shapes =
# lists, the peer / headroom table's ratios against the medians in results.json, its
# markdown and CSV, peers.md's header lines, the charts' peer titles, scripts/peers-bench.sh.
SUITE=peers_run
. "$(dirname "$0")/lib.sh"
CC=${CC:-cc}
P1=$TMP/example_naive.so
P2=$TMP/second_peer.so
make -s -C "$ROOT/examples/plugin" OUT="$TMP" CC="$CC" >/dev/null 2>&1 || fail build_example "make failed"
sed -e 's/"example_naive"/"second_peer"/' -e 's/"example"/"second"/' -e 's/"1\.0"/"2.5"/' \
    "$ROOT/examples/plugin/example_naive.c" > "$TMP/second_peer.c"
$CC -std=c11 -O2 -shared -fPIC -I "$ROOT/include" "$TMP/second_peer.c" -o "$P2" -lm || fail build_second "cc failed"

# A plugin kernel may not take a config's word for a set of kernels as its name.
sed -e 's/"example_naive"/"plugins"/' "$ROOT/examples/plugin/example_naive.c" > "$TMP/word.c"
$CC -std=c11 -shared -fPIC -I "$ROOT/include" "$TMP/word.c" -o "$TMP/word.so" -lm || fail build_word "cc failed"
expect name_plugins_reserved 2 "plugin $TMP/word.so: kernel name 'plugins' is reserved" -- $B list --plugin "$TMP/word.so"

cat > "$TMP/peers.ini" <<'EOF'
[sweep]
description = tiny peers run
kernels = flash, gqa, decode, plugins, ghost_peer?
shapes = H2/N32/d16, H4/G2/N24/d16/causal,
         H4/G2/N1/M96/d16
threads = 1, 2
reps = 3
min_time = 0.001
warmup = 0
probe = false
EOF
PL=(--plugin "$P1" --plugin "$P2")

# The config: plugins expands to every loaded plugin's kernels; ghost_peer? is skipped
# with its reason; without plugins, plugins itself is noted; a typo stays an error.
$B sweep "$TMP/peers.ini" "${PL[@]}" --dry-run > "$TMP/dry.txt" 2>&1
expect expand_first 0 'example_naive/B1/H2/G2/N32/M32/d16/full/bhnd/T1' -- cat "$TMP/dry.txt"
expect expand_second 0 'second_peer/B1/H4/G2/N1/M96/d16/full/bhnd/T1' -- cat "$TMP/dry.txt"
expect absent_reason 0 "^ghost_peer +not loaded: no plugin declares kernel 'ghost_peer'" -- cat "$TMP/dry.txt"
expect shapes_listed 0 'flash/B1/H4/G2/N24/M24/d16/causal/bhnd/T2' -- cat "$TMP/dry.txt"
n=$(grep -c '/B1/H2/G2/N24/' "$TMP/dry.txt")
[ "$n" = 0 ] && ok shapes_not_product || fail shapes_not_product "$n rows of a shape the list does not hold"
expect no_plugins_noted 0 '^plugins +no plugin is loaded' -- $B sweep "$TMP/peers.ini" --dry-run
sed 's/^kernels = .*/kernels = flash, gqq, plugins/' "$TMP/peers.ini" > "$TMP/typo.ini"
expect typo_is_error 2 "typo.ini:3: kernels: unknown kernel 'gqq'" -- $B sweep "$TMP/typo.ini" "${PL[@]}" --dry-run
sed 's/^kernels = .*/kernels = ghost_peer?/' "$TMP/peers.ini" > "$TMP/none.ini"
expect only_absent_is_error 2 'kernels: none of these kernels is in this build or loaded: not loaded' -- $B sweep "$TMP/none.ini" --dry-run
printf '[sweep]\nshapes = H2/N32/d16\nseq = 64\n' > "$TMP/both.ini"
expect shapes_and_seq 2 'both.ini:3: give shapes or seq, not both' -- $B sweep "$TMP/both.ini" --dry-run
printf '[sweep]\nshapes = H2/N32/x16\n' > "$TMP/bad.ini"
expect shape_bad_token 2 "bad.ini:2: shapes: shape 'H2/N32/x16': 'x16' is not H<heads>" -- $B sweep "$TMP/bad.ini" --dry-run

# One interleaved sweep of headroom's kernels and both peers; the absent one in skipped.
expect sweep_runs 0 '' -- $B sweep "$TMP/peers.ini" "${PL[@]}" --out "$TMP/run" --quiet
expect skipped_absent 0 '"name":[[:space:]]*"ghost_peer"' -- cat "$TMP/run/results.json"
expect report_peers 0 '\| shape \| T \| headroom kernel \| GFLOP/s \| % of roof \| example_naive \(example 1\.0\) ÷ headroom \| second_peer \(second 2\.5\) ÷ headroom \|' -- \
    $B report "$TMP/run" --out "$TMP/rep" --peers --no-charts
expect report_md_section 0 '^## peer / headroom: ' -- cat "$TMP/rep/report.md"
expect peers_md_header 0 'libraries \(plugins loaded\): example 1\.0 \(.*example_naive\.so\), second 2\.5' -- cat "$TMP/rep/peers.md"
expect peers_md_commit 0 '^- headroom [0-9.]+, commit `[0-9a-f]' -- cat "$TMP/rep/peers.md"
expect report_table 0 'B1 H4/2 N1x96 d16 +1 ' -- $B report "$TMP/run" --out "$TMP/rep" --peers --no-charts --format table
expect table_needs_peers 2 '--format table: only with --peers' -- $B report "$TMP/run" --out "$TMP/rep" --format table --no-charts
$B sweep "$TMP/peers.ini" --out "$TMP/alone" --quiet --filter flash >/dev/null 2>&1
expect peers_none 2 '--peers: no plugin kernel' -- $B report "$TMP/alone" --out "$TMP/rep2" --peers --no-charts

# The ratios: each peer's median time over the least median time of the built-in
# kernels on the same shape and thread count, recomputed here from results.json.
$B report "$TMP/run" --out "$TMP/rep" --peers --no-charts --format csv > "$TMP/peers.csv" 2>/dev/null
if find_python; then
    out=$("$PY" - "$TMP/run/results.json" "$TMP/peers.csv" "$TMP/rep/peers.md" <<'EOF'
import csv, json, sys
doc = json.load(open(sys.argv[1]))
unit = {"ns": 1, "us": 1e3, "ms": 1e6, "s": 1e9}
med = {}
for b in doc["benchmarks"]:
    if b.get("run_type") != "aggregate" or b.get("aggregate_name") != "median":
        continue
    key = (b["heads"], b["kv_heads"], b["seq_q"], b["seq_kv"], b["d_head"], bool(b["causal"]), b["threads"])
    med.setdefault(key, []).append((b["kernel"], b["real_time"] * unit[b["time_unit"]], "plugin_library" in b))
rows = list(csv.DictReader(open(sys.argv[2])))
checked = 0
for key, cells in med.items():
    best = min((t, k) for k, t, peer in cells if not peer)
    for k, t, peer in cells:
        if not peer:
            continue
        want = t / best[0]
        got = [r for r in rows if r["peer_kernel"] == k and int(r["threads"]) == key[6]
               and r["shape"].startswith("B1 H%d/%d N%dx%d d%d" % key[:5])
               and r["shape"].endswith("causal") == key[5]]
        assert len(got) == 1, (key, k, got)
        assert got[0]["headroom_kernel"] == best[1], (key, got[0]["headroom_kernel"], best)
        assert abs(float(got[0]["peer_over_headroom"]) / want - 1) < 1e-4, (key, k, got[0], want)
        checked += 1
assert checked >= 6, checked
# peers.md: every table line has the header's number of cells
lines = [l for l in open(sys.argv[3]) if l.startswith("|")]
n = lines[0].count("|")
assert all(l.count("|") == n for l in lines), "ragged table"
assert set(lines[1].strip().strip("|").split("|")) <= {"---", "---:"}, lines[1]
assert len(lines) == 2 + len({k[:6] + (k[6],) for k in med}), (len(lines), len(med))
print("ratios", checked)
EOF
)
    case $out in ratios*) ok "ratios_match_medians" ;; *) fail ratios_match_medians "$out" ;; esac
else
    skip ratios_match_medians "no python3"
fi

# The charts: a peer's series is titled with its library.
if command -v "${HEADROOM_GNUPLOT:-gnuplot}" >/dev/null 2>&1; then
    $B plot "$TMP/run" >/dev/null 2>&1
    expect chart_roofline 0 '^# example_naive \(peer example 1\.0\) T1' -- cat "$TMP/run/plots/roofline.dat"
    expect chart_decode 0 '^# second_peer \(peer second 2\.5\) T1: B1 H4/2 d16' -- cat "$TMP/run/plots/decode.dat"
else
    skip chart_titles "no gnuplot"
fi

# make peers-bench's script: the peers given, the config given, one results set, peers.md.
expect bench_script 0 'second_peer \(second 2\.5\) ÷ headroom' -- env HR_PEERS="$P1 $P2" HEADROOM_RESULTS="$TMP/res" \
    HR_PEERS_NO_ROOFLINE=1 bash "$ROOT/scripts/peers-bench.sh" "$B" "$TMP/peers.ini"
n=$(ls -d "$TMP"/res/*/*-peers 2>/dev/null | wc -l)
[ "$n" = 1 ] && [ -f "$(ls -d "$TMP"/res/*/*-peers | head -n 1)/peers.md" ] && ok bench_one_set || fail bench_one_set "$n results sets"
expect bench_no_peer 0 'no peer plugin built' -- env HR_PEERS= HR_PEERS_DIR="$TMP/none" HEADROOM_RESULTS="$TMP/res" \
    bash "$ROOT/scripts/peers-bench.sh" "$B" "$TMP/peers.ini"
finish
