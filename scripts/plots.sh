#!/usr/bin/env bash
# plots.sh — `make plots`: every chart from the newest results of each machine under results/.
#
# For each results/<machine>/ it gathers the newest inputs and hands them to `headroom
# plot`, which prepares the data and runs gnuplot on plots/*.gp:
#   sweep      the newest results/<machine>/*/results.csv with attention (not layer) rows
#   ceilings   results/<machine>/ceilings.json                (headroom roofline)
#   crossover  the newest results/<machine>/*/crossover.csv    (headroom crossover, or a
#              mode = layer sweep such as configs/crossover.ini)
#   decode     the newest results/<machine>/decode*.csv or */decode*.csv
#              (headroom decode-loop --format csv > results/<machine>/decode-loop.csv);
#              rows run with --kv-dtype also draw the KV-cache story (kvstory)
#   kvcache    `headroom kvcache --format csv`, run on the spot (presets, no measurement)
# Charts go to <sweep>/plots/ and are copied to results/<machine>/plots/.
# Env: HR_BIN (the binary, ./headroom), HR_RESULTS (else $HEADROOM_RESULTS, else results),
# HEADROOM_GNUPLOT.
set -u
cd "$(dirname "$0")/.."
BIN=${HR_BIN:-./headroom}
RESULTS=${HR_RESULTS:-${HEADROOM_RESULTS:-results}}
GP=${HEADROOM_GNUPLOT:-gnuplot}
if ! command -v "$GP" >/dev/null 2>&1; then
    echo "notice: $GP not found: no plots (install gnuplot)"
    exit 0
fi
if [ ! -x "$BIN" ]; then
    echo "plots.sh: $BIN not built (make)" >&2
    exit 2
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
"$BIN" kvcache --format csv >"$tmp/kvcache.csv" || { echo "plots.sh: headroom kvcache failed" >&2; exit 2; }

# newest PATH...: the most recently modified of the existing paths given.
newest() { ls -1td -- "$@" 2>/dev/null | head -n 1; }

status=0 done=0
for m in "$RESULTS"/*/; do
    m=${m%/}
    [ -d "$m" ] || continue
    # The attention charts need a sweep with attention rows: the newest results.csv
    # holding a row that is not a layer phase (a crossover sweep, mode = layer, may be
    # newer; its rows feed the crossover chart only).
    sweep=""
    for csv in $(ls -1t -- "$m"/*/results.csv 2>/dev/null); do
        if tail -n +2 "$csv" | grep -qv '^layer/'; then
            sweep=$(dirname "$csv")
            break
        fi
    done
    args=(--kvcache "$tmp/kvcache.csv")
    [ -f "$m/ceilings.json" ] && args+=(--ceilings "$m/ceilings.json")
    cross=$(newest "$m"/*/crossover.csv)
    [ -n "$cross" ] && args+=(--crossover "$cross")
    dec=$(newest "$m"/decode*.csv "$m"/*/decode*.csv)
    [ -n "$dec" ] && args+=(--decode "$dec")
    # Nothing measured on this machine (e.g. results/report): skip it.
    [ -z "$sweep" ] && [ ! -f "$m/ceilings.json" ] && [ -z "$cross" ] && [ -z "$dec" ] && continue
    target=${sweep:-$m}
    out="$target/plots"
    echo "== $m (sweep: ${sweep:-none})"
    if "$BIN" plot "$target" --out "$out" "${args[@]}"; then
        if [ "$(cd "$out" && pwd -P)" != "$(mkdir -p "$m/plots" && cd "$m/plots" && pwd -P)" ]; then
            cp -f "$out"/*.png "$out"/*.svg "$m/plots/" 2>/dev/null
            echo "copied to $m/plots/"
        fi
        done=$((done + 1))
    else
        status=1
    fi
done
if [ "$done" -eq 0 ] && [ "$status" -eq 0 ]; then
    echo "notice: no results under $RESULTS/ to plot (make bench, or headroom sweep/roofline/crossover)"
fi
exit "$status"
