# sh_site.sh — headroom site over the committed fixtures (tests/fixtures/site: three machines,
# five commits, a peers run, an A/B run and a crossover; scripts/make_site_fixtures.py): the
# pages it writes, the A/B verdicts and crossover it shows, the bad input it refuses (one
# line, exit 2, nothing half-written), tables only without Chart.js, and every page loaded
# in one headless Chromium over the DevTools protocol (tests/site_browser.py: no uncaught
# exception, console error or failed load; tests/site_check.py: each chart's points = its
# rows), with a screenshot per page and the dark-theme and phone views kept in
# build/test-out/site/ (HR_SITE_SHOTS moves it).
SUITE=site
. "$(dirname "$0")/lib.sh"
FIX=$ROOT/tests/fixtures/site
S=$TMP/site

expect builds 0 "^site: $S/index.html \(8 results sets\)$" -- "$B" site "$FIX" --out "$S"
for p in index.html compare.html peers.html benchmarks.html m-zen5-2c.html m-xeon-8480-16c.html m-graviton-4c.html \
         r-zen5-2c--r005-ci.html assets/site.js assets/site.css; do
    if [ -s "$S/$p" ]; then ok "page_$p"; else fail "page_$p" "missing or empty"; fi
done
# History's verdict reaches the benchmark pages: flash is 12% slower at the fifth commit.
if grep -l '"verdict":"slower"' "$S"/b-*.html | xargs grep -q 'flash/B1/H8/G8/N512/M512/d64/full/bhnd/T2'; then
    ok history_verdict
else
    fail history_verdict "no benchmark page of flash on zen5 holds a slower verdict"
fi
# A machine with one run (graviton-4c) has its benchmark pages too: one run, its value.
if grep -l '"verdict":"one run"' "$S"/b-*.html | xargs grep -q '"machine":"graviton-4c"'; then ok history_one_run
else fail history_one_run "no benchmark page shows graviton-4c's single run"; fi
if grep -q 'torch 2.5.1' "$S/peers.html"; then ok peers_table; else fail peers_table "peers.html lacks the peer library"; fi
# The graviton fixture is an aarch64 build: its ISA reaches the overview.
if grep -q '"machine":"graviton-4c","href":"m-graviton-4c.html","cpu":"AWS Graviton4","isa":"neon"' "$S/index.html"
then ok isa_aarch64; else fail isa_aarch64 "the overview lacks graviton-4c's ISA neon"; fi
# page_data PAGE: the page's inline data as JSON on stdout.
page_data() { python3 -c 'import json, re, sys
print(json.dumps(json.loads(re.search(r"id=\"hr-data\">(.*?)</script>", open(sys.argv[1]).read(), re.S).group(1))))' "$1"; }
# ab_check SITE NAME VERDICT [INTERVAL]: the benchmark page of NAME shows headroom ab's
# verdict VERDICT, its ratio inside its interval (INTERVAL=none: no interval).
ab_check() {
    local site=$1 name=$2 want=$3 iv=${4:-yes} p
    p=$(grep -l "<title>$name — headroom</title>" "$site"/b-*.html | head -1)
    [ -n "$p" ] || { echo "no benchmark page of $name"; return 1; }
    page_data "$p" | python3 -c 'import json, sys
d = json.load(sys.stdin); want, iv = sys.argv[1], sys.argv[2]
ab = d.get("ab") or sys.exit("no A/B rows on the page")
r = ab[0]
if r["verdict"] != want: sys.exit("verdict %s, want %s" % (r["verdict"], want))
if iv == "none":
    if r["lo"] is not None: sys.exit("an interval from too few rounds")
elif not (r["lo"] <= r["ratio"] <= r["hi"] and r["hi"] > r["lo"]): sys.exit("ratio %s outside its interval [%s, %s]" % (r["ratio"], r["lo"], r["hi"]))
if not any(t["id"] == "ab" for t in d["tables"]): sys.exit("no A/B table")' "$want" "$iv"
}
for c in "flash/B1/H8/G8/N512/M512/d64/full/bhnd/T2 REGRESSION" "blocked/B1/H8/G8/N1024/M1024/d64/full/bhnd/T2 same" \
         "naive/B1/H8/G8/N2048/M2048/d64/causal/bhnd/T2 IMPROVEMENT"; do
    set -- $c
    if out=$(ab_check "$S" "$1" "$2" 2>&1); then ok "ab_${2}"; else fail "ab_${2}" "$1: $out"; fi
done
if grep -q '"name":"flash/B1/H8/G8/N512/M512/d64/full/bhnd/T2",[^}]*"ab":"REGRESSION"' "$S/benchmarks.html"; then ok ab_in_index
else fail ab_in_index "benchmarks.html lacks flash's A/B verdict"; fi
# The crossover and the KV story on zen5's machine page, from the rows behind them.
if out=$(page_data "$S/m-zen5-2c.html" | python3 -c 'import json, sys
d = json.load(sys.stdin); ids = [c["id"] for c in d["charts"]]
for want in ("crossover", "rows-kvstory", "rows-kv"):
    if want not in ids: sys.exit("no chart " + want)
n = sum(1 for l in open(sys.argv[1]) if l.strip() and not l.startswith("kernel,"))
if len(d["crossover"]) != n: sys.exit("%d crossover rows, crossover.csv has %d" % (len(d["crossover"]), n))
if len(d["nstar"]) != 4: sys.exit("%d N* rows, want 4" % len(d["nstar"]))
kv = [r for r in d["rows"] if "kv" in r]
if sorted({r["kv"] for r in kv if r["kernel"] == "decode"}) != ["decode kv bf16", "decode kv f32", "decode kv q8_0"]: sys.exit("decode types: %s" % kv)
q8 = {r["n"]: r["kv_mb"] for r in kv if r["kv"] == "decode kv q8_0"}; f32 = {r["n"]: r["kv_mb"] for r in kv if r["kv"] == "decode kv f32"}
if not all(q8[n] < f32[n] for n in q8): sys.exit("q8_0 steps read no fewer bytes than f32")' "$FIX/zen5-2c/crossover-1/crossover.csv" 2>&1)
then ok machine_crossover_kv; else fail machine_crossover_kv "$out"; fi
if grep -q '"crossover"' "$S/m-xeon-8480-16c.html"; then fail crossover_own_machine "xeon's page shows zen5's crossover"
else ok crossover_own_machine; fi
err=$("$B" site "$FIX/zen5-2c/crossover-1" --out "$TMP/onlyx" 2>&1 >/dev/null)
if [ "$(printf '%s\n' "$err" | wc -l)" = 1 ] && printf '%s' "$err" | grep -q "notice: .*no results set of machine 'zen5-2c'.*not shown"
then ok crossover_without_machine; else fail crossover_without_machine "$err"; fi
# A real headroom ab run: its verdicts reach the pages of its benchmarks (6 rounds: an
# interval; 2 rounds: too few for one).
sweep_config "$TMP/ab.ini" "kernels=naive" "seq=32"
for k in 6 2; do
    # an A/A run's verdict is the machine's noise (exit 1 on a false regression): whatever
    # it says, the site must show it, so only ab.json is required
    "$B" ab "$B" "$B" "$TMP/ab.ini" --rounds "$k" --reps 2 --out "$TMP/ab$k/zen5-2c/ab-$k" > /dev/null 2>&1
    if [ -s "$TMP/ab$k/zen5-2c/ab-$k/ab.json" ]; then
        "$B" site "$FIX/zen5-2c" "$TMP/ab$k" --out "$TMP/abs$k" > /dev/null
        v=$(python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["rows"][0]["verdict"])' "$TMP/ab$k/zen5-2c/ab-$k/ab.json")
        if out=$(ab_check "$TMP/abs$k" "naive/B1/H2/G2/N32/M32/d16/full/bhnd/T1" "$v" "$([ "$k" = 2 ] && echo none)" 2>&1)
        then ok "ab_real_rounds_$k"; else fail "ab_real_rounds_$k" "$out"; fi
    else fail "ab_real_rounds_$k" "headroom ab failed"; fi
done
if grep -q 'http[s]*://' "$S"/*.html "$S"/assets/site.js; then
    fail nothing_fetched "a page names a network address: $(grep -o 'https*://[^"]*' "$S"/*.html | head -1)"
else ok nothing_fetched; fi
# The results writer records the schema version the site reads.
if "$B" version --format json | grep -Eq '"schema_version":[[:space:]]*1,'; then ok context_schema_version
else fail context_schema_version "the context lacks \"schema_version\": 1"; fi
# A second build replaces the first whole.
expect rebuild 0 '^site: ' -- "$B" site "$FIX/zen5-2c" --out "$S"
if [ ! -e "$S/m-graviton-4c.html" ]; then ok rebuild_replaced; else fail rebuild_replaced "an old page stayed"; fi
# export (and every reader) takes a results directory or its results.json.
expect export_dir 0 '"name":[[:space:]]*"flash/' -- "$B" export "$FIX/zen5-2c/r001-ci" --to github-action-benchmark

# Bad input: one line, exit 2, nothing written.
mkdir -p "$TMP/bad/v2" "$TMP/bad/foreign" "$TMP/bad/broken"
NOT_WRITTEN=$TMP/bad
python3 - "$FIX/zen5-2c/r001-ci/results.json" "$TMP/bad/v2/results.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1])); d["context"]["schema_version"] = 2
json.dump(d, open(sys.argv[2], "w"))
PY
cp "$ROOT/tests/fixtures/compare/gbench_base.json" "$TMP/bad/foreign/results.json"
printf '{"context": {}, "benchmarks": [' > "$TMP/bad/broken/results.json"
one_line() { # NAME PATTERN -- CMD...: exit 2, exactly one line on stderr matching PATTERN, no site left
    local name=$1 pat=$2 err rc
    shift 3
    err=$("$@" 2>&1 >/dev/null); rc=$?
    if [ "$rc" = 2 ] && [ "$(printf '%s\n' "$err" | wc -l)" = 1 ] && printf '%s' "$err" | grep -Eq "$pat"; then ok "$name"
    else fail "$name" "exit $rc: $err"; fi
}
one_line schema_version 'schema_version 2, this headroom reads 1' -- "$B" site "$FIX/zen5-2c" "$TMP/bad/v2" --out "$TMP/o1"
one_line foreign "not headroom's results" -- "$B" site "$TMP/bad/foreign" --out "$TMP/o2"
one_line broken 'JSON ends before|invalid JSON' -- "$B" site "$TMP/bad/broken" --out "$TMP/o3"
: > "$TMP/afile"
one_line out_is_file 'exists and is not a directory' -- "$B" site "$FIX/zen5-2c" --out "$TMP/afile"
cp -r "$FIX/graviton-4c" "$TMP/input"
one_line out_inside_input 'inside the results directory' -- "$B" site "$TMP/input" --out "$TMP/input/r1-peers/site"
one_line out_holds_input 'holds the results' -- "$B" site "$TMP/input/r1-peers" --out "$TMP/input"
mkdir -p "$TMP/other" && : > "$TMP/other/notes.txt"
one_line out_not_a_site 'not a site headroom wrote' -- "$B" site "$FIX/zen5-2c" --out "$TMP/other"
one_line no_results 'no results.json' -- "$B" site "$TMP/other" --out "$TMP/o4"
mkdir -p "$TMP/bad/ab" "$TMP/bad/cross"
printf '{"title": "x"}\n' > "$TMP/bad/ab/ab.json"
printf 'kernel,d_model,N,core_s\nflash,512,64,0.1\n' > "$TMP/bad/cross/crossover.csv"
one_line ab_without_rows 'ab.json: not the verdicts of headroom ab' -- "$B" site "$FIX/zen5-2c" "$TMP/bad/ab" --out "$TMP/o5"
one_line crossover_without_column "crossover.csv.*proj_s" -- "$B" site "$FIX/zen5-2c" "$TMP/bad/cross" --out "$TMP/o6"
left=$(ls -d "$TMP"/o[1-6]* "$TMP"/*.tmp-* "$TMP"/input/r1-peers/site* "$TMP"/afile.* 2>/dev/null)
if [ -z "$left" ]; then ok nothing_half_written; else fail nothing_half_written "left: $left"; fi
if [ -f "$TMP/input/r1-peers/results.json" ] && [ -f "$TMP/other/notes.txt" ]; then ok inputs_untouched; else fail inputs_untouched "an input was removed"; fi

# Without Chart.js: one notice line, the tables, no chart script.
err=$(HEADROOM_CHARTJS=/nonexistent/chart.min.js "$B" site "$FIX/zen5-2c" --out "$TMP/nocharts" 2>&1 >/dev/null)
if [ "$(printf '%s\n' "$err" | wc -l)" = 1 ] && printf '%s' "$err" | grep -q 'notice: .*not found.*tables only' \
   && [ ! -e "$TMP/nocharts/assets/chart.min.js" ] && [ -s "$TMP/nocharts/index.html" ]; then ok no_chartjs_degrades
else fail no_chartjs_degrades "$err"; fi

# Every page in headless Chromium, with a screenshot each.
CHROME=${HR_CHROMIUM:-$(command -v chromium || command -v chromium-browser || true)}
SHOTS=${HR_SITE_SHOTS:-$ROOT/build/test-out/site}
if [ -z "$CHROME" ]; then
    skip browser "no chromium (apt-get install chromium) to load the pages in"
elif [ ! -r /usr/share/javascript/chart.js/chart.min.js ] && [ -z "${HEADROOM_CHARTJS:-}" ]; then
    skip browser "no Chart.js (apt-get install libjs-chart.js): the pages have no charts to check"
else
    rm -rf "$SHOTS" && mkdir -p "$SHOTS"
    "$B" site "$FIX" --out "$S" > /dev/null
    sweep_config "$TMP/tiny.ini" "kernels=naive, flash" "seq=32, 64"
    "$B" sweep "$TMP/tiny.ini" --out "$TMP/sweep" > /dev/null 2>&1
    abpage=$(grep -l '<title>flash/B1/H8/G8/N512/M512/d64/full/bhnd/T2 — headroom' "$S"/b-*.html | head -1)
    # Every page at 1280 px; the machine page dark and at a phone's 390 px; the A/B page at 390 px.
    views=("$S"/*.html "$TMP/sweep/index.html=sweep-index" "$S/m-zen5-2c.html:dark=dark-m-zen5-2c"
           "$S/m-zen5-2c.html@390x1600=phone-m-zen5-2c" "$abpage@390x1600=phone-$(basename "$abpage" .html)")
    timeout 300 python3 "$ROOT/tests/site_browser.py" "$CHROME" "$SHOTS" "${views[@]}" > "$TMP/browser.out" 2>&1
    rc=$?
    if [ "$rc" = 0 ]; then ok browser_no_errors
    else fail browser_no_errors "exit $rc: $(head -n 3 "$TMP/browser.out" | tr '\n' ' ')"; fi
    bad=0 n=0
    for v in "${views[@]}"; do
        p=${v%%[@:=]*} f=$(basename "$p" .html)
        case $v in *=*) f=${v##*=} ;; esac
        if out=$(python3 "$ROOT/tests/site_check.py" "$p" "$SHOTS/$f.dom" 2>&1); then n=$((n + 1))
        else bad=$((bad + 1)); fail "browser_$f" "$(printf '%s' "$out" | head -n 2 | tr '\n' ' ')"; fi
    done
    [ "$bad" = 0 ] && ok "browser_every_page ($n views, screenshots in $SHOTS)"
    # The driver catches what a page's scripts do wrong: an uncaught exception, a console
    # error, a script that does not load.
    sed 's#</body>#<script>console.error("hr-test-console")</script><script>throw new Error("hr-test-boom")</script><script src="assets/absent.js"></script></body>#' \
        "$S/index.html" > "$S/zz-broken.html"
    timeout 120 python3 "$ROOT/tests/site_browser.py" "$CHROME" "$TMP/broken" "$S/zz-broken.html" > "$TMP/broken.out" 2>&1
    rc=$?
    if [ "$rc" = 1 ] && grep -q 'uncaught: Error: hr-test-boom' "$TMP/broken.out" && grep -q 'console.error: hr-test-console' "$TMP/broken.out" \
       && grep -q 'absent.js' "$TMP/broken.out"; then ok browser_catches_errors
    else fail browser_catches_errors "exit $rc: $(tr '\n' ' ' < "$TMP/broken.out")"; fi
    rm -f "$S/zz-broken.html"
fi
exit $((nfail > 0))
