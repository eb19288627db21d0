#!/usr/bin/env bash
# bench.sh — the main job (make bench): ceilings if none are saved for this machine, the
# default sweep, the decode loop, the N² crossover of a full layer at two model widths,
# then the plots (every chart with its roof) and the sweep's index.html with them inline.
# Usage: scripts/bench.sh [HEADROOM_BINARY] [CONFIG]
# Env: HR_CROSSOVER_DMODEL (the crossover's d_model list, 256,512).
set -euo pipefail
cd "$(dirname "$0")/.."
bin=${1:-./headroom}
case $bin in */*) ;; *) bin=./$bin ;; esac
config=${2:-configs/default.ini}
root=${HEADROOM_RESULTS:-results}   # the results root, as the binary resolves it
t0=$(date +%s)

# The machine key results are filed under (results/<machine>/), as the binary computes it.
machine=$("$bin" run --kernel naive --heads 1 --seq 16 --d-head 16 --reps 1 --min-time 0 \
          --warmup 0 --format json 2>/dev/null | sed -n 's/.*"machine":[[:space:]]*"\([^"]*\)".*/\1/p')
if [ -z "$machine" ]; then
    echo "bench.sh: cannot ask $bin for the machine key" >&2
    exit 2
fi
ceilings=$root/$machine/ceilings.json
if [ -s "$ceilings" ]; then
    echo "bench.sh: using the saved ceilings $ceilings (delete it to measure again)"
else
    echo "bench.sh: no ceilings for $machine: measuring them (headroom roofline)"
    "$bin" roofline
fi

# --quiet: on a busy machine the per-row warnings (noise, phase changes) run to hundreds
# of lines; they are kept in results.json's context and listed in summary.md/index.html.
"$bin" sweep "$config" --quiet
dir=$root/$machine/latest
# Decode time per token against the cache length, for the decode chart, in every type a
# cache is stored in (the KV-cache story: tokens/s against GiB, and the format's error,
# from --check): one layer of H32/Hkv8 d128 (Llama-3-8B's attention), 16 generated tokens
# after each prompt length.
echo "bench.sh: decode-loop at cache lengths 1K..64K, KV cache f32 f16 bf16 q8_0 q4_0 -> $dir/decode-loop.csv"
for T in f32 f16 bf16 q8_0 q4_0; do
    for P in 1024 4096 16384 65536; do
        "$bin" decode-loop --layers 1 --prompt "$P" --tokens 16 --rows 1 --kv-dtype "$T" --check --format csv
    done
done | awk 'NR == 1 || !/^kernel,/' > "$dir/decode-loop.csv.tmp"
mv "$dir/decode-loop.csv.tmp" "$dir/decode-loop.csv"
# The crossover: where the attention core's N² term overtakes the projections, measured
# (flash core, BLAS projections where built) at two model widths; its CSVs go beside the
# sweep's results, where `headroom plot` and scripts/plots.sh find them.
dmodel=${HR_CROSSOVER_DMODEL:-256,512}
echo "bench.sh: crossover at d_model $dmodel -> $dir/crossover.csv"
"$bin" crossover --d-model "$dmodel" --kernels flash --seq-min 64 --seq-max 4096 --out "$dir"
echo "bench.sh: results in $(readlink -f "$dir")"

if [ -x scripts/plots.sh ] || [ -f scripts/plots.sh ]; then
    HR_RESULTS=$root bash scripts/plots.sh || echo "bench.sh: note: scripts/plots.sh failed (status $?); the results are kept"
else
    echo "bench.sh: note: scripts/plots.sh is not there yet: no plots rendered"
fi
# What the job made: the charts and the summaries, where a user looks for them.
echo "bench.sh: charts:"
ls -1 "$dir"/plots/*.png 2>/dev/null | sed 's/^/  /' || true
for f in summary.md index.html; do
    if [ -f "$dir/$f" ]; then echo "bench.sh: $f: $(readlink -f "$dir/$f")"; fi
done
echo "bench.sh: done in $(( $(date +%s) - t0 )) s"
