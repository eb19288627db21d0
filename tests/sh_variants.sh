#!/usr/bin/env bash
# sh_variants.sh — the attention variants (--window, --softcap, --alibi) through run, check,
# sweep, layer, decode-loop and kvcache: naive takes them, a kernel without a capability is
# refused (run: exit 2) or skipped with the reason (check, sweep), bad values are one line
# naming the flag, and the readers keep variant problems apart (tests/fixtures/variants).
SUITE=variants
source "$(dirname "$0")/lib.sh"
FIX=$(cd "$(dirname "$0")/fixtures/variants" && pwd)
NOT_WRITTEN=$FIX
R=(--reps 2 --min-time 0.001 --warmup 0 --no-probe)
# A built-in kernel without the window capability (whichever that is in this build).
PLAIN=$($B list | awk '$1 != "naive" && $2 ~ /causal/ && $2 !~ /window/ { print $1; exit }')

expect run-window       0 'naive +B1 H2/2 N64x64 d16 causal window 7 .*pass' -- $B run --kernel naive --heads 2 --seq 64 --d-head 16 --causal --window 7 --check "${R[@]}"
expect run-softcap      0 'causal softcap 5 .*pass' -- $B run --kernel naive --heads 2 --seq 64 --d-head 16 --causal --softcap 5 --check "${R[@]}"
expect run-alibi        0 'alibi 8 .*pass' -- $B run --kernel naive --heads 6 --kv-heads 3 --seq 40 --d-head 16 --alibi 8 --check "${R[@]}"
expect run-all-three    0 'window 16 softcap 50 alibi 8 .*pass' -- $B run --kernel naive --heads 2 --seq 48 --d-head 16 --causal --window 16 --softcap 50 --alibi 8 --check "${R[@]}"
expect run-name-segs    0 '"name":[[:space:]]*"naive/B1/H2/G2/N32/M32/d16/causal/w7/cap50/alibi8/bhnd/T1' -- $B run --kernel naive --heads 2 --seq 32 --d-head 16 --causal --window 7 --softcap 50 --alibi 8 --format json "${R[@]}"
expect run-json-fields  0 '"window":[[:space:]]*7' -- $B run --kernel naive --heads 2 --seq 32 --d-head 16 --causal --window 7 --format json "${R[@]}"
expect run-plain-no-field 1 '' -- sh -c "$B run --kernel naive --heads 2 --seq 32 --d-head 16 --format json --reps 2 --min-time 0.001 --warmup 0 --no-probe | grep -Eq '\"(window|softcap|alibi)\"'"
if [ -n "$PLAIN" ]; then
    expect run-refused-window  2 "^headroom run: kernel $PLAIN cannot run this shape: no sliding window \(--window; capability 'window'\)$" -- $B run --kernel "$PLAIN" --seq 32 --causal --window 8 "${R[@]}"
    expect run-refused-softcap 2 "no soft-capped scores \(--softcap; capability 'softcap'\)" -- $B run --kernel "$PLAIN" --seq 32 --softcap 50 "${R[@]}"
    expect run-refused-alibi   2 "no ALiBi biases \(--alibi; capability 'alibi'\)" -- $B run --kernel "$PLAIN" --seq 32 --alibi 8 "${R[@]}"
    expect tune-refused        2 "^headroom tune: kernel $PLAIN cannot run this shape: no sliding window" -- $B tune --kernel "$PLAIN" --causal --window 8 --seq 32
    expect check-skips-plain   0 "^$PLAIN +window +skipped: no sliding window \(--window; capability 'window'\)" -- $B check --kernel "$PLAIN" --quick --threads 1
    expect check-skip-counted  0 ', 0 fail, .*4 kernel variant\(s\) skipped \(capability not declared\)$' -- $B check --kernel "$PLAIN" --quick --threads 1
    expect check-flag-plain    2 "^headroom check: kernel $PLAIN cannot run the window-5 battery: no sliding window \(--window; capability 'window'\)" -- $B check --kernel "$PLAIN" --quick --window 5
else
    skip run-refused-window "every kernel of this build takes a window"
fi

# Bad input: one line naming the flag, exit 2.
expect bad-window-zero     2 '^headroom run: --window: must be in \[1, '  -- $B run --kernel naive --causal --window 0
expect bad-window-negative 2 '^headroom run: --window: must be in \[1, '  -- $B run --kernel naive --causal --window -3
expect bad-window-full     2 "^headroom run: --window: a sliding window is causal .*add --causal$" -- $B run --kernel naive --window 8
expect bad-softcap-zero    2 '^headroom run: --softcap: must be in '      -- $B run --kernel naive --softcap 0
expect bad-softcap-neg     2 '^headroom run: --softcap: must be in '      -- $B run --kernel naive --softcap -1
expect bad-alibi-zero      2 '^headroom run: --alibi: must be in '        -- $B run --kernel naive --alibi 0
expect bad-alibi-neg       2 '^headroom run: --alibi: must be in '        -- $B run --kernel naive --alibi -8
expect bad-check-window    2 '^headroom check: --window: must be in \[1, ' -- $B check --window 0
expect bad-layer-window    2 "^headroom layer: --window: a sliding window is causal" -- $B layer --kernel naive --seq 16 --d-model 32 --d-head 16 --window 4
expect bad-loop-softcap    2 '^headroom decode-loop: --softcap: must be in ' -- $B decode-loop --softcap 0

# check: each variant's battery on naive; the flags narrow it to theirs.
expect check-naive-window  0 '^naive +f32 window +T1 +[0-9]+ pass +0 warn +0 fail' -- $B check --kernel naive --quick
expect check-naive-softcap 0 '^naive +f32 softcap +T1 +[0-9]+ pass +0 warn +0 fail' -- $B check --kernel naive --quick
expect check-naive-alibi   0 '^naive +f32 alibi +T1 +[0-9]+ pass +0 warn +0 fail' -- $B check --kernel naive --quick
expect check-naive-three   0 '^naive +f32 window\+softcap\+alibi +T1 +[0-9]+ pass +0 warn +0 fail' -- $B check --kernel naive --quick
expect check-flag-only     0 '^check: 1 kernel\(s\), 1 type combination\(s\), window-9-softcap-5 battery: [0-9]+ pass, 0 warn, 0 fail' -- $B check --kernel naive --quick --window 9 --softcap 5
expect check-flag-no-plain 1 '' -- sh -c "$B check --kernel naive --quick --alibi 3 | grep -Eq '^naive +f32 +T1 '"

# sweep: window, softcap and alibi axes; names and resume keys tell the points apart.
NROWS=8 # naive's eight variant sets, and the plain kernel's plain point
[ -z "$PLAIN" ] || NROWS=9
sweep_config "$TMP/v.ini" kernels=naive${PLAIN:+,$PLAIN} seq=32 causal=true "window=0, 8" "softcap=0, 50" "alibi=0, 8"
expect sweep-axes       0 "headroom sweep: $NROWS rows .*, [0-9]+ skipped" -- $B sweep "$TMP/v.ini" --out "$TMP/sv"
expect sweep-row-w8     0 '^naive/B1/H2/G2/N32/M32/d16/causal/w8/cap50/alibi8/bhnd/T1,' -- cat "$TMP/sv/results.csv"
expect sweep-row-plain  0 '^naive/B1/H2/G2/N32/M32/d16/causal/bhnd/T1,' -- cat "$TMP/sv/results.csv"
if [ -n "$PLAIN" ]; then
    expect sweep-skip-reason 0 "$PLAIN/B1/.*/causal/w8/.*not applicable: no sliding window \(--window; capability 'window'\)" -- cat "$TMP/sv/summary.md"
fi
expect sweep-resume     0 "headroom sweep: $NROWS rows \\(0 new, $NROWS resumed\\)" -- $B sweep "$TMP/v.ini" --resume "$TMP/sv"
sweep_config "$TMP/bad.ini" kernels=naive "window=0, -4"
expect sweep-bad-window 2 'bad\.ini:[0-9]+: window: ' -- $B sweep "$TMP/bad.ini" --dry-run
sweep_config "$TMP/bad2.ini" kernels=naive "softcap=fifty"
expect sweep-bad-softcap 2 "bad2\.ini:[0-9]+: softcap: 'fifty': expected a number" -- $B sweep "$TMP/bad2.ini" --dry-run
sweep_config "$TMP/l.ini" heads= mode=layer kernels=naive d_model=32 seq=16 causal=true "window=0, 4" check=true
expect sweep-layer-rows 0 '^layer/naive/own/B1/N16/D32/H2/G2/d16/causal/w4/T1/core,' -- sh -c "$B sweep '$TMP/l.ini' --out '$TMP/lv' >/dev/null && cat '$TMP/lv/results.csv'"
expect sweep-layer-series 0 '^naive/w4,32,16,' -- cat "$TMP/lv/crossover.csv"
expect sweep-layer-plain-series 0 '^naive,32,16,' -- cat "$TMP/lv/crossover.csv"

# layer and decode-loop: flags and the presets' variants (Gemma 2: window on layers 0, 2, ...).
expect layer-gemma2-local  0 '^layer: kernel naive, .*d_model 3584 H16/8 d256 causal window 4096 softcap 50;' -- $B layer --model gemma2-9b --kernel naive --seq 16 --reps 1 --warmup 0
expect layer-gemma2-global 0 '^layer: kernel naive, .*d256 causal softcap 50;' -- $B layer --model gemma2-9b --layer 1 --kernel naive --seq 16 --reps 1 --warmup 0
expect layer-window-check  0 '^check: pass ' -- $B layer --kernel naive --seq 40 --d-model 64 --heads 4 --causal --window 5 --softcap 20 --alibi 8 --check --reps 1 --warmup 0
expect layer-json-window   0 '"window":[[:space:]]*5' -- $B layer --kernel naive --seq 16 --d-model 32 --d-head 16 --causal --window 5 --format json --reps 1 --warmup 0
expect layer-bad-layer     2 '^headroom layer: --layer: gemma2-9b has layers 0\.\.41, got 42$' -- $B layer --model gemma2-9b --layer 42
expect layer-layer-alone   2 '^headroom layer: --layer: needs --model' -- $B layer --layer 3
expect loop-gemma2      0 'window 4096 softcap 50 \(window on every 2nd layer from 0\)' -- $B decode-loop --model gemma2-9b --kernel naive --layers 2 --prompt 8 --tokens 2 --rows 1
expect loop-window-check 0 'check: pass' -- $B decode-loop --kernel naive --layers 2 --heads 2 --kv-heads 1 --d-head 16 --prompt 40 --tokens 3 --window 9 --alibi 8 --check
expect loop-json-window 0 '"window":[[:space:]]*9' -- $B decode-loop --kernel naive --layers 1 --heads 2 --d-head 16 --prompt 8 --tokens 2 --window 9 --format json

# kvcache: a sliding-window layer holds min(window, tokens). Mistral 7B, every layer W 4096:
# at 8K tokens f16 half the full 1 GiB; Gemma 2 9B, 21 of 42 layers windowed: at 8192 f16
# 21 x 64 MiB + 21 x 32 MiB = 1.97 GiB; at 2048 tokens every layer holds all of them.
expect kv-mistral-8k     0 '^mistral-7b,GQA,32,4096,32,8,128,8192,1,8192,1073741824,536870912,' -- $B kvcache --model mistral-7b --context 8K --format csv
expect kv-mistral-2k     0 '^mistral-7b,GQA,32,4096,32,8,128,8192,1,2048,536870912,268435456,' -- $B kvcache --model mistral-7b --context 2K --format csv
expect kv-gemma2-8k      0 '^gemma2-9b,GQA,42,3584,16,8,256,8192,1,8192,4227858432,2113929216,' -- $B kvcache --model gemma2-9b --context 8K --format csv
expect kv-gemma2-note    0 'sliding window 4096 on 21 of 42 layers: those hold min\(4096, tokens\)' -- $B kvcache --model gemma2-9b --context 8K
expect kv-plain-model    0 '^llama3-8b,GQA,32,4096,32,8,128,8192,1,8192,2147483648,1073741824,' -- $B kvcache --model llama3-8b --context 8K --format csv

# Readers: the four problems of the fixture stay apart; files before the variants read as plain.
expect report-shapes   0 '## B1 H2/2 N16x16 d8 causal window 4 softcap 50' -- $B report "$FIX/results.json" --no-charts --out "$TMP/rep" --format markdown
expect report-plain    0 '## B1 H2/2 N16x16 d8 causal$' -- $B report "$FIX/results.json" --no-charts --out "$TMP/rep2" --format markdown
expect compare-rows    0 'naive/B1/H2/G2/N16/M16/d8/causal/w4/cap50/bhnd/T1 ' -- $B compare "$FIX/results.json" "$FIX/results.json"
expect compare-four    0 '^4$' -- sh -c "$B compare '$FIX/results.json' '$FIX/results.json' 2>/dev/null | grep -c '^naive/'"
expect history-apart   0 'naive/B1/H2/G2/N16/M16/d8/causal/w4/bhnd/T1' -- $B history "$FIX/results.json" "$ROOT/tests/fixtures/pre-dtype/results.json"
expect compare-old     0 '' -- sh -c "$B compare '$ROOT/tests/fixtures/pre-dtype/results.json' '$ROOT/tests/fixtures/pre-dtype/results.json' >/dev/null"
finish
