# sh_site.sh — headroom site over the committed fixtures (tests/fixtures/site: three machines,
# five commits, a peers run; scripts/make_site_fixtures.py): the pages it writes, the bad input
# it refuses (one line, exit 2, nothing half-written), tables only without Chart.js, and every
# page loaded in headless Chromium (no script error, each chart's points = its rows), with a
# screenshot per page kept in build/test-out/site/ (HR_SITE_SHOTS moves it).
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
left=$(ls -d "$TMP"/o[1-4]* "$TMP"/*.tmp-* "$TMP"/input/r1-peers/site* "$TMP"/afile.* 2>/dev/null)
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
    bad=0 n=0
    for p in "$S"/*.html; do
        f=$(basename "$p" .html)
        timeout 60 "$CHROME" --headless --disable-gpu --no-sandbox --hide-scrollbars --virtual-time-budget=4000 \
            --window-size=1280,1800 --screenshot="$SHOTS/$f.png" --dump-dom "file://$p" > "$TMP/$f.dom" 2> "$TMP/$f.log"
        if out=$(python3 "$ROOT/tests/site_check.py" "$p" "$TMP/$f.dom"); then n=$((n + 1))
        else bad=$((bad + 1)); fail "browser_$f" "$(printf '%s' "$out" | head -n 2 | tr '\n' ' ')"; fi
        if grep -q 'CONSOLE.*\(Uncaught\|Error\)' "$TMP/$f.log"; then
            bad=$((bad + 1)); fail "console_$f" "$(grep -m1 CONSOLE "$TMP/$f.log")"
        fi
    done
    [ "$bad" = 0 ] && ok "browser_every_page ($n pages, screenshots in $SHOTS)"
    # A sweep's own index.html is a page of the same template, its assets inline.
    sweep_config "$TMP/tiny.ini" "kernels=naive, flash" "seq=32, 64"
    "$B" sweep "$TMP/tiny.ini" --out "$TMP/sweep" > /dev/null 2>&1
    timeout 60 "$CHROME" --headless --disable-gpu --no-sandbox --hide-scrollbars --virtual-time-budget=4000 \
        --window-size=1280,1800 --screenshot="$SHOTS/sweep-index.png" --dump-dom "file://$TMP/sweep/index.html" > "$TMP/sweep.dom" 2>/dev/null
    if out=$(python3 "$ROOT/tests/site_check.py" "$TMP/sweep/index.html" "$TMP/sweep.dom"); then ok browser_sweep_index
    else fail browser_sweep_index "$(printf '%s' "$out" | head -n 2 | tr '\n' ' ')"; fi
    # A phone's width: the overview still draws.
    timeout 60 "$CHROME" --headless --disable-gpu --no-sandbox --hide-scrollbars --virtual-time-budget=4000 \
        --window-size=390,1600 --screenshot="$SHOTS/phone-m-zen5-2c.png" --dump-dom "file://$S/m-zen5-2c.html" > "$TMP/phone.dom" 2>/dev/null
    if python3 "$ROOT/tests/site_check.py" "$S/m-zen5-2c.html" "$TMP/phone.dom" > /dev/null; then ok phone_width; else fail phone_width "the machine page fails at 390 px"; fi
fi
exit $((nfail > 0))
