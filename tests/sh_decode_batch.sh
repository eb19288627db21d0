#!/usr/bin/env bash
# sh_decode_batch.sh — `headroom decode-batch`: a ragged batch checked and timed, and its bad input.
SUITE=decode_batch
source "$(dirname "$0")/lib.sh"

S="--heads 4 --kv-heads 2 --d 32 --reps 1 --threads 2"
expect help            0 'usage: headroom decode-batch' -- $B decode-batch --help
expect list-checked    0 'check: all 3 sequences within tolerance' -- $B decode-batch --lens 17,300,1 --rows 2,3,1 --check $S
expect list-total      0 '^total: 3 sequences, 6 tokens' -- $B decode-batch --lens 17,300,1 --rows 2,3,1 $S
expect zipf-q8         0 'total: 6 sequences, 6 tokens.*kv q8_0' -- $B decode-batch --dist zipf --batch 6 --len-min 16 --len-max 2000 --kv-dtype q8_0 --check $S
expect serial-checked  0 'check: all 3 sequences within tolerance' -- $B decode-batch --lens 17,300,1 --rows 2,3,1 --check --schedule serial $S
expect serial-total    0 '^total: 3 sequences, 6 tokens.*serial\)$' -- $B decode-batch --lens 17,300,1 --rows 2,3,1 --schedule serial $S
expect fused-total     0 '^total: 3 sequences, 6 tokens.*fused\)$' -- $B decode-batch --lens 17,300,1 --rows 2,3,1 $S
expect chat-bf16       0 'check: all 5 sequences within tolerance' -- $B decode-batch --dist chat --batch 5 --len-min 1 --len-max 3000 --kv-dtype bf16 --check $S --threads 3
expect bad-fused       2 '^headroom decode-batch: --schedule: fused runs the decode kernel' -- $B decode-batch --lens 5,6 --kernel flash --schedule fused $S
expect other-serial    0 'serial\)$' -- $B decode-batch --lens 5,6 --kernel flash $S
expect bad-schedule    2 '--schedule' -- $B decode-batch --lens 5,6 --schedule later $S
expect bad-entry       2 '^headroom decode-batch: --lens: entry 2 \("0"\) is not a positive integer$' -- $B decode-batch --lens 5,0 $S
expect bad-count       2 '^headroom decode-batch: --lens: 2 entries for a batch of 3' -- $B decode-batch --lens 5,6 --batch 3 $S
expect bad-rows        2 '^headroom decode-batch: --rows: 3 entries for a batch of 2' -- $B decode-batch --lens 5,6 --rows 1,1,1 $S
expect bad-bounds      2 '^headroom decode-batch: --len-min/--len-max: need 1 <= min <= max' -- $B decode-batch --dist zipf --len-min 50 --len-max 5 $S
expect bad-budget      2 '^headroom decode-batch: --max-mem: the batch needs' -- $B decode-batch --lens 1000,2000 --max-mem 1K $S
# The share of the level's bandwidth: the level of the batch's bytes and its read-only
# figure from the ceilings file; none without one; a file that does not read is an error.
$B roofline --quick --threads 1-2 --out "$TMP/ceil.json" >/dev/null 2>&1
expect level-share     0 '^level: [0-9.]+ MiB live in (L1|L2|L3|DRAM): [0-9.]+ of its read-only bandwidth, [0-9.]+ GB/s at 2 threads \(triad [0-9.]+; ' -- $B decode-batch --lens 17,300,1 --ceilings "$TMP/ceil.json" $S
# An older file: no load figures, no cache roofs, no curve (all came after the triad). The
# batch's level follows the machine: beyond its L3 the file's triad stands in, in a cache
# level the file holds no figure; a small batch is in L2 everywhere (81 KiB a thread).
python3 -c "
import json; d=json.load(open('$TMP/ceil.json'))
for r in d['ceilings']:
    for k in [k for k in r if k.startswith('load_gbs') or k in ('cache_roofs', 'bandwidth_curve', 'measured_levels')]: del r[k]
json.dump(d, open('$TMP/old.json', 'w'))"
expect level-old-file  0 '^level: [0-9.]+ MiB live in (L3, whose bandwidth .* does not hold|DRAM: [0-9.]+ of its triad, .*no load figure)' -- $B decode-batch --lens 100000 --ceilings "$TMP/old.json" $S
expect level-old-l2    0 '^level: 0.2 MiB live in L2, whose bandwidth .*old.json does not hold$' -- $B decode-batch --lens 17,300,1 --ceilings "$TMP/old.json" $S
expect level-bad-file  2 '^headroom decode-batch: .*nope.json: cannot read ceilings file' -- $B decode-batch --lens 5,6 --ceilings "$TMP/nope.json" $S
expect bad-both        2 '^headroom decode-batch: --lens and --dist' -- $B decode-batch --lens 5 --dist zipf $S
finish
