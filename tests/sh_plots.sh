#!/usr/bin/env bash
# sh_plots.sh — `headroom plot` and scripts/plots.sh on the made-up fixture tests/fixtures/plots.
SUITE=plots
source "$(dirname "$0")/lib.sh"
F=tests/fixtures/plots
CHARTS="roofline kernels workspace scaling crossover kvcache decode kvstory"

expect help 0 'usage: headroom plot' -- $B plot --help
expect no-dir 2 'headroom plot: .*nowhere: not a directory' -- $B plot "$TMP/nowhere"
expect no-arg 2 'headroom plot: give a results directory' -- $B plot
if ! command -v "${HEADROOM_GNUPLOT:-gnuplot}" >/dev/null 2>&1; then
    skip rendering "gnuplot not installed; charts not tested"
    finish
    exit
fi

# is_png FILE / is_svg FILE: non-empty, and the format's signature.
is_png() { [ -s "$1" ] && [ "$(head -c 8 "$1" | od -An -tx1 | tr -d ' \n')" = 89504e470d0a1a0a ]; }
is_svg() { [ -s "$1" ] && grep -q '<svg' "$1"; }
# check NAME COND...: one case from a shell condition.
check() {
    local name=$1
    shift
    if "$@"; then ok "$name"; else fail "$name" "failed: $*"; fi
}

O=$TMP/all
expect render-all 0 '8 chart\(s\) in' -- $B plot $F --out "$O"
for c in $CHARTS; do
    check "$c-png" is_png "$O/$c.png"
    check "$c-svg" is_svg "$O/$c.svg"
    check "$c-no-log" test ! -e "$O/$c.gnuplot.log"
done
# The titles carry the machine and date of the results' context.
check title-machine grep -q 'fixture-made-up-zen4-2c, 2024-01-01' "$O/roofline.svg"
# The data behind the charts (the fixture's numbers, reproduced exactly):
# roof at 1 thread: 131.2 GFLOP/s / 24.8 GB/s, ridge at 5.29 FLOP/byte.
check roof-ridge grep -q '^5.29032258 131.2 0$' "$O/roofline.dat"
# the dot-product roofs at 2 threads: bf16 518 GFLOP/s flat from its ridge 518 / 37.9.
check roof-bf16 grep -q '^# avx512_bf16 roof T2: 518 GFLOP/s$' "$O/roofline.dat"
check roof-bf16-ridge grep -q '^13.6675462 518 0$' "$O/roofline.dat"
check roof-int8 grep -q '^# avx512_vnni roof T2: 1036 GOP/s$' "$O/roofline.dat"
# naive scores N x N fp32: 2048^2 * 4 B = 16 MiB; flash tiles stay flat (0.09375 MiB).
check ws-naive-n2 grep -q '^2048 16 0$' "$O/workspace.dat"
check ws-flash-flat test "$(grep -A5 '^# flash T2' "$O/workspace.dat" | grep -c ' 0.09375 0$')" = 5
# kernels: each of 7 kernels x {non-causal, causal} a block of 5 Ns, at its largest thread count
# (+ 2 header lines and the 2 FMA peaks, T1 and T2).
check kernels-blocks test "$(grep -c '^# ' "$O/kernels.dat")" = 18
check kernels-maxthreads grep -q '^# flash T2 causal$' "$O/kernels.dat"
# scaling: flash 1 -> 2 threads, z = speed-up 1.92 (fixture); the ceiling 131.2 -> 259.
check scaling-speedup grep -q '^2 [0-9.]* 1\.920[0-9]*$' "$O/scaling.dat"
check scaling-ceiling grep -q '^2 259 1.97408537$' "$O/scaling.dat"
# crossover: the measured N* 412 of d_model 512 and its FLOP line at 1024.
check cross-nstar grep -q '^412 ' "$O/crossover.dat"
check cross-flops grep -q '^1024 [0-9.e-]* 0$' "$O/crossover.dat"
# kvcache: llama3-8b at 8192 tokens fp16 = 1 GiB, its MHA equivalent 4 GiB.
check kv-gqa grep -q '^8192 1 0$' "$O/kvcache.dat"
check kv-mha grep -q '^8192 4 0$' "$O/kvcache.dat"
# ... and q8_0 with its scales 544 MiB = 0.53125 GiB, q4_0 288 MiB = 0.28125 GiB.
check kv-q8 grep -q '^8192 0.53125 0$' "$O/kvcache.dat"
# decode: beside each series its bound, KV bytes / the triad at its threads: f32 at the
# first range's middle (1472.5 tokens, 8 layers, Hkv8 d128) 96.5 MB / 37.9 GB/s = 2.547 ms.
check decode-bound grep -q '^1472.5 2.54708517 0$' "$O/decode.dat"
check decode-bound-all test "$(grep -c '(no data)' "$O/decode.dat")" = 0
check decode-loglog grep -q 'bound: KV bytes' "$O/decode.svg"
# kernels: the FMA peak at each thread count the chart shows (T1 131.2, T2 259).
check kernels-roof grep -q '^# avx512 FMA peak T2: 259 GFLOP/s$' "$O/kernels.dat"
check kernels-roof-t1 grep -q '^2048 131.2 0$' "$O/kernels.dat"
check kv-q4 grep -q '^8192 0.28125 0$' "$O/kvcache.dat"

# The bandwidth curve chart: skipped for ceilings without a curve (the fixture's, written
# before it); drawn from one with a made-up three-level curve, the knees at the levels.
expect curve-skipped 0 'skipped cachecurve: the ceilings have no bandwidth curve' -- $B plot $F --out "$TMP/nocurve"
mkdir -p "$TMP/ceilcurve"
python3 -c "
import json
d = json.load(open('$F/ceilings.json'))
ws = [4096 * 2 ** (i / 2) for i in range(31)]
bw = [400 if w < 48e3 else 150 if w < 1.5e6 else 60 if w < 30e6 else 20 for w in ws]
for r in d['ceilings']:
    r['bandwidth_curve'] = {'working_set_bytes': ws, 'load_gbs': bw, 'triad_gbs': bw}
    r['measured_levels'] = {'L1': {'size_bytes': 49152, 'load_gbs': 400, 'triad_gbs': 400},
                            'L2': {'size_bytes': 1.5e6, 'load_gbs': 150, 'triad_gbs': 150},
                            'L3': {'size_bytes': 3e7, 'load_gbs': 60, 'triad_gbs': 60}}
    r['beyond_gbs'] = 20
json.dump(d, open('$TMP/ceilcurve/ceilings.json', 'w'))
"
expect curve-drawn 0 'wrote .*/cachecurve.png' -- $B plot "$TMP/ceilcurve" --out "$TMP/ceilcurve/plots"
check curve-png is_png "$TMP/ceilcurve/plots/cachecurve.png"
check curve-knee grep -q '^1500000 150 0$' "$TMP/ceilcurve/plots/cachecurve.dat"
check curve-blocks test "$(grep -c '^# \(triad\|load\) T' "$TMP/ceilcurve/plots/cachecurve.dat")" = 4
check curve-roofs grep -q '^# L2 roof T2: triad 150 GB/s, load 150 GB/s (measured level)$' "$TMP/ceilcurve/plots/roofline.dat"

# Default output directory, and a results/<machine> directory read through latest/.
M=$TMP/res/fixture-machine
# Committed fixtures copied under $TMP, not files headroom wrote (lib.sh's written_valid).
NOT_WRITTEN="$M
$TMP/ceilold
$TMP/ceilonly
$TMP/ceilcache
$TMP/ceilcurve
$TMP/res-ceil"
mkdir -p "$M/20240101-000000-default"
cp $F/results.csv $F/results.json "$M/20240101-000000-default/"
cp $F/ceilings.json "$M/"
ln -s 20240101-000000-default "$M/latest"
expect machine-dir 0 'wrote .*latest/plots/roofline.png' -- $B plot "$M"
check machine-dir-png is_png "$M/20240101-000000-default/plots/scaling.png"
expect machine-dir-skips 0 'skipped crossover: no crossover.csv' -- $B plot "$M" --out "$TMP/m2"

# Only some inputs: the others are skipped with a note.
mkdir -p "$TMP/kvonly"
cp $F/kvcache.csv "$TMP/kvonly/"
expect partial 0 'skipped roofline: no ceilings.json and no sweep' -- $B plot "$TMP/kvonly"
check partial-png is_png "$TMP/kvonly/plots/kvcache.png"

# kvstory: one series per stored type (widest first) and kernel; q4_0's first range
# (cache 1920 tokens, 8 layers x 8 KV heads x d128 x 18/32 B x 2) = 0.0164794922 GiB.
check story-series test "$(grep -cE '^# (f32|f16|bf16|q8_0|q4_0): ' "$O/kvstory.dat")" = 6
check story-order grep -q '^# f32: decode T2' "$O/kvstory.dat"
check story-q4 grep -q '^0.0164794922 [0-9.]* 1920$' "$O/kvstory.dat"
check story-err grep -q '^6 0.063 0$' "$O/kvstory.dat"
# ... and its roof, triad / cache bytes at T2: 37.9 GB/s over 0.5 GiB = 70.59 tokens/s.
check story-bound grep -q '^0.5 70.5942512 0$' "$O/kvstory.dat"
# decode.csv from before --kv-dtype: the decode chart as before, the story skipped saying why.
mkdir -p "$TMP/decold"
cut -d, -f1-17 $F/decode.csv | awk -F, 'NR == 1 || $1 == "flash"' >"$TMP/decold/decode.csv"
expect story-old 0 "skipped kvstory: .*decode.csv: no column 'kv_dtype' \(decode-loop --kv-dtype" -- $B plot "$TMP/decold"
check story-old-decode is_png "$TMP/decold/plots/decode.png"
# hostile rows (NaN and huge shapes, an unknown type, an empty field) draw nothing: a note.
mkdir -p "$TMP/badstory"
printf 'kernel,kv_dtype,layers,batch,kv_heads,d_head,heads,threads,cache_last,tokens_per_s\ndecode,q8_0,nan,1,8,128,32,2,1e300,5\ndecode,q9,1,1,8,128,32,2,100,5\ndecode,f16,,1,8,128,32,2,100,5\n' >"$TMP/badstory/decode.csv"
expect story-hostile 2 "skipped kvstory: .*no row with a known kv_dtype and a cache size \(kv_dtype 'q9' is not a type" -- $B plot "$TMP/badstory"
# without format_max_rel (no --check): the error panel is left out, the key says so.
mkdir -p "$TMP/noerr"
cut -d, -f1-19 $F/decode.csv >"$TMP/noerr/decode.csv"
expect story-noerr 0 'wrote .*noerr/plots/kvstory.png' -- $B plot "$TMP/noerr"
check story-noerr-key grep -q 'format error not measured' "$TMP/noerr/plots/kvstory.svg"

# Rows with element types (results.csv dtype, kv_dtype): their own point series.
mkdir -p "$TMP/typed"
awk -F, -v OFS=, 'NR == 1 { print $0, "dtype", "kv_dtype"; next } $2 == "flash" { print $0, "bf16", "bf16"; next }
                  $2 == "decode" || $2 == "gqa" { print $0, "f32", "q8_0"; next } { print $0, "f32", "f32" }' \
    $F/results.csv >"$TMP/typed/results.csv"
expect typed 0 'wrote .*typed/plots/roofline.png' -- $B plot "$TMP/typed" --ceilings $F/ceilings.json
check typed-bf16 grep -q '^# flash bf16 T2$' "$TMP/typed/plots/roofline.dat"
check typed-kv grep -q '^# gqa kv=q8_0 T2$' "$TMP/typed/plots/roofline.dat"
check typed-f32 grep -q '^# naive T1$' "$TMP/typed/plots/roofline.dat"

# A kvcache CSV from before the stored types (bytes_fp16 ...): its f32 and f16 lines.
mkdir -p "$TMP/kvold"
printf 'model,attention,layers,d_model,heads,kv_heads,d_head,model_context,batch,tokens,bytes_fp32,bytes_fp16,bytes_int8,mha_bytes_fp32,mha_bytes_fp16,mha_bytes_int8,saving,beyond_context\nllama3-8b,GQA,32,4096,32,8,128,8192,1,8192,2147483648,1073741824,536870912,8589934592,4294967296,2147483648,4,0\n' > "$TMP/kvold/kvcache.csv"
expect kv-old 0 'wrote .*kvold/plots/kvcache.png' -- $B plot "$TMP/kvold"
check kv-old-types grep -q '^# one per stored type ("f32" "f16")' "$TMP/kvold/plots/kvcache.dat"

# Ceilings but no sweep yet (right after `headroom roofline`): the roofs alone, the sweep's
# charts skipped with a note each, exit 0 (gnuplot once stopped on the empty point lists).
C=$TMP/ceilonly
mkdir -p "$C"
cp $F/ceilings.json "$C/"
expect ceil-only 0 'wrote .*ceilonly/plots/roofline.png' -- $B plot "$C"
expect ceil-only-notes 0 'skipped kernels: no sweep results.csv' -- $B plot "$C" --out "$TMP/c2"
check ceil-only-png is_png "$C/plots/roofline.png"
check ceil-only-no-log test ! -e "$C/plots/roofline.gnuplot.log"
# A ceilings file from before the dot-product roofs: the FMA roofs alone.
C=$TMP/ceilold
mkdir -p "$C"
python3 -c "import json,sys; d=json.load(open('$F/ceilings.json')); d.pop('dot_roofs'); [r.pop(k) for r in d['ceilings'] for k in list(r) if k.startswith(('bf16_', 'int8_'))]; json.dump(d, open('$C/ceilings.json', 'w'))"
expect ceil-old 0 'wrote .*ceilold/plots/roofline.png' -- $B plot "$C"
check ceil-old-no-dot test "$(grep -c 'avx512_bf16' "$C/plots/roofline.dat")" = 0
check ceil-only-roofs grep -q '^5.29032258 131.2 0$' "$C/plots/roofline.dat"
check ceil-old-no-cache test "$(grep -c ' roof T[0-9]*: triad ' "$C/plots/roofline.dat")" = 0
# With cache roofs (L1/L2/L3 triad 400/200/80 GB/s at 2 threads): three more slopes,
# labelled, each from xmin up to the FMA peak.
C=$TMP/ceilcache
mkdir -p "$C"
python3 -c "import json; d=json.load(open('$F/ceilings.json')); r=d['ceilings'][-1]; r['cache_roofs']={l: {'working_set_bytes': w, 'load_gbs': ld, 'triad_gbs': t} for l, w, ld, t in (('L1', 15360, 300, 400), ('L2', 523776, 150, 200), ('L3', 8388096, 60, 80))}; json.dump(d, open('$C/ceilings.json', 'w'))"
expect ceil-cache 0 'wrote .*ceilcache/plots/roofline.png' -- $B plot "$C"
check ceil-cache-no-log test ! -e "$C/plots/roofline.gnuplot.log"
check ceil-cache-l1 grep -q '^# L1 roof T2: triad 400 GB/s, load 300 GB/s$' "$C/plots/roofline.dat"
check ceil-cache-levels test "$(grep -c '^# L[123] roof T2: triad ' "$C/plots/roofline.dat")" = 3
check ceil-cache-l3-slope grep -qE '^[0-9.e-]+ [0-9.e-]+ 0$' "$C/plots/roofline.dat"

# A sweep of causal rows only: the kernels chart draws that panel alone; a sweep whose
# kernels have no workspace skips that chart instead of failing in gnuplot.
mkdir -p "$TMP/causal" "$TMP/nows"
awk -F, 'NR == 1 || $9 == 1' $F/results.csv >"$TMP/causal/results.csv"
expect causal-only 0 'wrote .*/kernels.png' -- $B plot "$TMP/causal"
check causal-only-png is_png "$TMP/causal/plots/kernels.png"
mkdir -p "$TMP/noncausal"
awk -F, 'NR == 1 || $9 == 0' $F/results.csv >"$TMP/noncausal/results.csv"
expect noncausal-only 0 'wrote .*/kernels.png' -- $B plot "$TMP/noncausal"
check noncausal-only-png is_png "$TMP/noncausal/plots/kernels.png"
check noncausal-only-no-log test ! -e "$TMP/noncausal/plots/kernels.gnuplot.log"
awk -F, -v OFS=, 'NR > 1 { $25 = 0 } 1' $F/results.csv >"$TMP/nows/results.csv"
expect no-workspace 0 'skipped workspace: no kernel of the sweep has a workspace' -- $B plot "$TMP/nows"

# Repeated x (two sweep passes) collapse to their median: the mean of the two middle ones.
mkdir -p "$TMP/passes"
{ cat $F/results.csv; awk -F, -v OFS=, 'NR > 1 { $22 += 1 } NR > 1' $F/results.csv; } >"$TMP/passes/results.csv"
expect passes 0 '' -- $B plot "$TMP/passes"
check passes-median grep -q '^2048 55.707 0$' "$TMP/passes/plots/kernels.dat"

# gnuplot failing on real data: the other charts are drawn, its messages shown, its log
# kept, exit 2.
printf '#!/bin/sh\ncase "$*" in *kernels.gp*) echo "made-up failure"; exit 1;; esac\nexec %s "$@"\n' \
    "$(command -v "${HEADROOM_GNUPLOT:-gnuplot}")" >"$TMP/gp-fail"
chmod +x "$TMP/gp-fail"
expect gnuplot-fails 2 '^  made-up failure' -- env HEADROOM_GNUPLOT=$TMP/gp-fail $B plot $F --out "$TMP/gpf"
check gnuplot-fails-log grep -q 'made-up failure' "$TMP/gpf/kernels.gnuplot.log"
check gnuplot-fails-others is_png "$TMP/gpf/decode.png"

# Bad input: exit 2 with one line naming the problem.
mkdir -p "$TMP/empty"
expect empty 2 'headroom plot: .*empty: nothing to plot' -- $B plot "$TMP/empty"
expect missing-flag-file 2 'headroom plot: --kvcache: .*nope.csv: no such file' -- $B plot $F --out "$TMP/x" --kvcache "$TMP/nope.csv"
echo '{"headroom_ceilings": 1, "ceilings": []}' >"$TMP/badceil.json"
expect bad-ceilings 2 'headroom plot: .*badceil.json: "ceilings" must be an array' -- $B plot $F --out "$TMP/x" --ceilings "$TMP/badceil.json"
printf 'kernel,batch\nnaive,1\n' >"$TMP/empty/results.csv"
expect bad-csv 2 "headroom plot: .*results.csv: no column 'heads'" -- $B plot "$TMP/empty"
expect no-gnuplot 2 'headroom plot: /nonexistent/gnuplot not found' -- env HEADROOM_GNUPLOT=/nonexistent/gnuplot $B plot $F --out "$TMP/x"

# The window chart: drawn from causal rows with a sliding window (a block per window, dense
# causal beside them), skipped where the sweep has none.
expect window-skipped 0 'skipped window: no causal rows with a sliding window' -- $B plot $F --out "$TMP/nowin"
expect window-drawn 0 'wrote .*/window.png' -- $B plot tests/fixtures/plots-window --out "$TMP/win"
check window-png is_png "$TMP/win/window.png"
check window-blocks test "$(grep -c '^# flash \(dense causal\|window [0-9]*\)$' "$TMP/win/window.dat")" = 3
check window-points test "$(grep -c '^[0-9]* [0-9.e+-]* 1024$' "$TMP/win/window.dat")" = 4
check window-plain-kernels sh -c "! grep -q 'window' '$TMP/win/kernels.dat'"

# The paged chart: decode rows that differ only in page_size, a block per KV type and thread
# count (x P, y tokens/s paged, z the contiguous rate), skipped where no such pairs exist.
expect paged-skipped 0 'skipped paged: no decode rows that differ only in page_size' -- $B plot $F --out "$TMP/nopage"
expect paged-drawn 0 'wrote .*/paged.png' -- $B plot tests/fixtures/plots-paged --out "$TMP/pg"
check paged-png is_png "$TMP/pg/paged.png"
check paged-blocks test "$(grep -c '^# decode \(kv=\)\?\(f32\|q8_0\) T2 ' "$TMP/pg/paged.dat")" = 2
check paged-points test "$(grep -c '^\(16\|64\|256\|1024\) [0-9.e+-]* [0-9.e+-]*$' "$TMP/pg/paged.dat")" = 8

# make plots: scripts/plots.sh over a results tree, copies in results/<machine>/plots/.
cp -r $F "$TMP/res/fixture-machine/crossover-20240101-000000"
cp $F/decode.csv "$M/decode-loop.csv"
expect plots-sh 0 'copied to .*fixture-machine/plots/' -- env HR_BIN=$B HR_RESULTS=$TMP/res bash scripts/plots.sh
for c in $CHARTS; do check "plots-sh-$c" is_png "$M/plots/$c.png"; done
# make plots on a results tree holding only a machine's ceilings: exit 0, roofs and presets.
mkdir -p "$TMP/res-ceil/ceil-machine"
cp $F/ceilings.json "$TMP/res-ceil/ceil-machine/"
expect plots-sh-ceil-only 0 'wrote .*ceil-machine/plots/roofline.png' -- env HR_BIN=$B HR_RESULTS=$TMP/res-ceil bash scripts/plots.sh
for c in roofline kvcache; do check "plots-sh-ceil-only-$c" is_png "$TMP/res-ceil/ceil-machine/plots/$c.png"; done
finish
