#!/usr/bin/env bash
# sh_install.sh — `make install PREFIX=...` gives a headroom that works from any
# directory: --version, run, sweep with roofline columns (ceilings under
# $HEADROOM_RESULTS), data files from <prefix>/share/headroom, the man page, completion;
# the plugin header under <prefix>/include, with which the example plugin, copied out of
# the tree, builds and loads into the installed binary; DESTDIR staging, `make uninstall`.
SUITE=install
source "$(dirname "$0")/lib.sh"
BIN=$(readlink -f "$HR_BIN")
P=$TMP/prefix
RES=$TMP/res
# make from inside make test: the parent's flags and jobserver are not ours.
MK=(env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL make --no-print-directory -s)
# The installed binary, run from / with only what a user would set.
H=(env -C / -u HEADROOM_PLOTS HEADROOM_RESULTS="$RES" "$P/bin/headroom")

expect make-install 0 '' -- "${MK[@]}" install PREFIX="$P" INSTALL_BIN="$BIN"
missing=""
for f in bin/headroom include/headroom/plugin.h share/headroom/configs/ci.ini share/headroom/configs/model-presets.ini \
         share/headroom/plots/roofline.gp share/headroom/plots/style.gp share/man/man1/headroom.1 \
         share/bash-completion/completions/headroom; do
    [ -f "$P/$f" ] || missing="$missing $f"
done
[ -z "$missing" ] && ok installed-files || fail installed-files "missing:$missing"
[ -x "$P/bin/headroom" ] && ok installed-executable || fail installed-executable "$P/bin/headroom not executable"

# --version (and `version`): release, commit, build id, flags, ISA, and the data it found
# under the prefix, not in the checkout.
Preal=$(cd "$P" && pwd -P)
ver=$(cat VERSION)
expect version 0 "^headroom $ver" -- "${H[@]}" --version
expect version-cmd 0 "^headroom $ver" -- "${H[@]}" version
expect version-fields 0 'build id  [0-9a-f]{16}' -- "${H[@]}" --version
expect version-flags 0 '^flags .*-O' -- "${H[@]}" --version
expect version-isa 0 '^isa +(avx512|avx2|generic|scalar)' -- "${H[@]}" --version
expect version-configs 0 "^configs +$Preal/share/headroom/configs$" -- "${H[@]}" --version
expect version-plots 0 "^plots +$Preal/share/headroom/plots$" -- "${H[@]}" --version
expect version-results 0 "^results +$RES \(\\\$HEADROOM_RESULTS\)" -- "${H[@]}" --version
# Without $HEADROOM_RESULTS an installed binary keeps its results under the user's data
# directory, the same from every current directory (so its ceilings are found anywhere).
expect version-results-home 0 "^results +$TMP/home/.local/share/headroom/results " -- env -C / -u HEADROOM_RESULTS -u XDG_DATA_HOME HOME="$TMP/home" "$P/bin/headroom" --version
expect version-results-xdg 0 "^results +$TMP/xdg/headroom/results " -- env -C / -u HEADROOM_RESULTS XDG_DATA_HOME="$TMP/xdg" "$P/bin/headroom" --version
expect version-bad-flag 2 "^headroom version: unknown option '--bogus'" -- "${H[@]}" version --bogus
expect version-json 0 '"headroom_version":[[:space:]]*"' -- "${H[@]}" version --format json

# A tiny run from /.
expect run 0 'naive' -- "${H[@]}" run --kernel naive --heads 1 --seq 16 --d-head 16 --reps 1 --min-time 0 --warmup 0 --no-probe
# Presets found under the prefix.
expect kvcache-presets 0 'llama3-8b' -- "${H[@]}" kvcache --model llama3-8b --context 1
# A config named relative to the data files resolves from anywhere.
expect sweep-config-lookup 0 'points' -- "${H[@]}" sweep configs/ci.ini --dry-run

# Ceilings under the results root, then a tiny sweep from /: every row has roofline
# columns, the results go under $HEADROOM_RESULTS/<machine>/.
machine=$("${H[@]}" --version | sed -n 's/^machine *\([^ ]*\).*/\1/p')
expect ceilings 0 'ceilings saved' -- "${H[@]}" roofline --quick --threads 1 --out "$RES/$machine/ceilings.json"
printf '[sweep]\nkernels = naive\nheads = 1\nd_head = 16\nseq = 16, 32\nthreads = 1\nreps = 2\nmin_time = 0\nwarmup = 0\nprobe = false\n' > "$TMP/tiny.ini"
expect sweep 0 '2 rows' -- "${H[@]}" sweep "$TMP/tiny.ini"
csv=$(ls "$RES/$machine"/*-tiny/results.csv 2>/dev/null | head -n 1)
if [ -n "$csv" ] && [ -L "$RES/$machine/latest" ]; then ok sweep-under-results-root; else fail sweep-under-results-root "no $RES/$machine/*-tiny/results.csv or latest link"; fi
expect sweep-roofline-columns 0 '^2$' -- awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == "pct_of_roofline") c = i; next }
    c && $c != "" { n++ } END { print n + 0 }' "$csv"

# The chart scripts come from the prefix too.
if command -v "${HEADROOM_GNUPLOT:-gnuplot}" >/dev/null 2>&1; then
    expect plot 0 '' -- "${H[@]}" plot "$RES/$machine/latest" --out "$TMP/plots"
    [ -s "$TMP/plots/roofline.png" ] && ok plot-roofline || fail plot-roofline "no roofline.png drawn from the installed scripts"
else
    skip plot "gnuplot not installed"
fi

# The man page: formatted by man when there is one, else checked by groff.
page=$P/share/man/man1/headroom.1
expect man-version 0 "^\.TH HEADROOM 1 .*\"headroom $ver\"" -- grep '^\.TH' "$page"
if command -v man >/dev/null 2>&1; then
    expect man 0 'HEADROOM_RESULTS' -- env MANWIDTH=80 MANPAGER=cat man -l "$page"
    expect man-sections 0 '^EXIT STATUS' -- env MANWIDTH=80 MANPAGER=cat man -l "$page"
elif command -v groff >/dev/null 2>&1; then
    expect man-groff 0 'HEADROOM_RESULTS' -- groff -man -Tutf8 -ww "$page"
else
    skip man "neither man nor groff installed"
fi
expect completion 0 '_headroom headroom' -- bash -c "source '$P/share/bash-completion/completions/headroom'; complete -p headroom"

# A plugin from outside the tree: the example's source and Makefile copied away, built
# against the installed header alone, loaded into the installed headroom by --plugin and
# by HEADROOM_PLUGIN_PATH, its oracle battery run.
EX=$TMP/outside
mkdir -p "$EX" && cp "$(dirname "$0")/../examples/plugin/example_naive.c" "$(dirname "$0")/../examples/plugin/Makefile" "$EX/"
expect plugin-outside-builds 0 '' -- "${MK[@]}" -C "$EX" HEADROOM_INCLUDE="$P/include" CC="${CC:-cc}"
expect plugin-outside-check 0 'example_naive +f32 +T1 +[0-9]+ pass +0 warn +0 fail' -- \
    "${H[@]}" check --quick --kernel example_naive --plugin "$EX/example_naive.so"
expect plugin-outside-path 0 'example_naive ' -- env HEADROOM_PLUGIN_PATH="$EX/example_naive.so" "${H[@]}" list

# DESTDIR stages the tree; the staged binary still finds its data relative to itself.
expect destdir 0 '' -- "${MK[@]}" install DESTDIR="$TMP/stage" PREFIX=/usr INSTALL_BIN="$BIN"
Sreal=$(cd "$TMP/stage" 2>/dev/null && pwd -P)
expect destdir-data 0 "^configs +$Sreal/usr/share/headroom/configs$" -- "$TMP/stage/usr/bin/headroom" --version

expect uninstall 0 '' -- "${MK[@]}" uninstall PREFIX="$P"
left=$(cd "$P" && find . -type f | sort | tr '\n' ' ')
[ -z "$left" ] && ok uninstall-clean || fail uninstall-clean "left behind: $left"
finish
