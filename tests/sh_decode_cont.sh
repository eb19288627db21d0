#!/usr/bin/env bash
# sh_decode_cont.sh — `headroom decode-loop --max-batch`: continuous batching checked, and its bad input.
SUITE=decode_cont
source "$(dirname "$0")/lib.sh"

S="--heads 4 --kv-heads 2 --d-head 32 --threads 2 --requests 6 --len-max 500 --out-max 30"
expect cont-checked    0 '^check: a step of 3 sequences: pass' -- $B decode-loop --max-batch 3 --check $S
expect cont-total      0 '^total: [0-9]+ tokens in [0-9]+ steps.*occupancy' -- $B decode-loop --max-batch 3 --arrival 0.5 $S
expect cont-per-seq    0 '^per sequence: median [0-9.]+ tokens/s, p90' -- $B decode-loop --max-batch 2 --len-dist zipf --kv-dtype q8_0 $S
expect bad-prompt      2 '^headroom decode-loop: --prompt: not a flag of continuous batching' -- $B decode-loop --max-batch 3 --prompt 5 $S
expect bad-tokens      2 '^headroom decode-loop: --tokens: not a flag of continuous batching' -- $B decode-loop --max-batch 3 --tokens 5 $S
expect bad-bounds      2 '^headroom decode-loop: --out-min/--out-max: need 1 <= min <= max' -- $B decode-loop --max-batch 3 --out-min 40 $S
expect bad-len         2 '^headroom decode-loop: --len-min/--len-max' -- $B decode-loop --max-batch 3 --len-min 900 $S
expect bad-arrival     2 '--arrival' -- $B decode-loop --max-batch 3 --arrival -1 $S
expect bad-max-batch   2 '--max-batch' -- $B decode-loop --max-batch 0 $S
finish
