#!/usr/bin/env bash
# sh_paged.sh — the paged KV cache end to end: decode, flash and gqa through a shuffled block table against the oracle, the --page-size rule, names and results fields, and kvcache's paged model.
SUITE=paged
source "$(dirname "$0")/lib.sh"

# Every KV type at 1, 2 and 3 threads, a length that is not a multiple of P, and P 16, 64, 256.
shape=(--kernel decode --batch 2 --heads 8 --kv-heads 2 --seq 1 --seq-kv 1001 --d-head 64 --causal --check --min-time 0.001 --reps 1 --warmup 0)
for P in 16 64 256; do
    for kt in f32 f16 bf16 q8_0 q4_0; do
        for T in 1 2 3; do
            expect "decode-p$P-$kt-t$T" 0 '^check: pass' -- $B run "${shape[@]}" --page-size $P --kv-dtype $kt --threads $T
        done
    done
done
# flash and gqa (prefill: Nq = Nkv, and a chunk against a longer cache) through the table,
# causal and full, a window, fp32 and bf16, 1 to 3 threads, a tile that crosses pages.
for k in flash gqa; do
    for P in 16 64 256; do
        for T in 1 2 3; do
            expect "$k-p$P-t$T" 0 '^check: pass' -- $B run --kernel $k --heads 8 --kv-heads 2 --seq 300 --seq-kv 300 --d-head 64 --causal --page-size $P --threads $T --check --min-time 0.001 --reps 1 --warmup 0
        done
    done
    expect "$k-full-bf16"   0 '^check: pass' -- $B run --kernel $k --batch 2 --heads 6 --kv-heads 3 --seq 77 --seq-kv 500 --d-head 128 --dtype bf16 --page-size 16 --threads 2 --check --min-time 0.001 --reps 1 --warmup 0
    expect "$k-window-tile" 0 '^check: pass' -- $B run --kernel $k --heads 4 --kv-heads 1 --seq 100 --seq-kv 333 --causal --window 50 --softcap 30 --page-size 64 --block-kv 40 --layout bnhd --threads 2 --check --min-time 0.001 --reps 1 --warmup 0
done
expect flash-row-name       0 "^flash/B1/H8/G2/N300/M300/d64/causal/page64/bhnd/T1," -- $B run --kernel flash --heads 8 --kv-heads 2 --seq 300 --seq-kv 300 --d-head 64 --causal --page-size 64 --threads 1 --min-time 0.001 --reps 1 --format csv --quiet
expect list-cap-flash       0 'flash .*paged' -- $B list
expect decode-bnhd          0 '^check: pass' -- $B run "${shape[@]}" --page-size 16 --layout bnhd --kv-dtype q8_0 --threads 2
expect decode-gqa-rows      0 '^check: pass' -- $B run --kernel decode --heads 8 --kv-heads 1 --seq 4 --seq-kv 77 --page-size 16 --check --min-time 0.001 --reps 1
expect row-name             0 "^decode/B2/H8/G2/N1/M1001/d64/causal/page16/bhnd/T1," -- $B run "${shape[@]}" --page-size 16 --threads 1 --format csv --quiet
expect json-field           0 '"page_size":[[:space:]]*64' -- $B run "${shape[@]}" --page-size 64 --threads 1 --format json --quiet
expect csv-field            0 ',64$' -- $B run "${shape[@]}" --page-size 64 --threads 1 --format csv --quiet
expect csv-unpaged          0 ',0$' -- $B run "${shape[@]}" --threads 1 --format csv --quiet
expect check-battery        0 'decode .* 0 fail' -- $B check --kernel decode --quick --kv-dtype q4_0 --threads 2

# Bad input: one line naming the flag and the rule, exit 2.
expect not-power-of-two     2 '^headroom run: --page-size: must be a power of two in \[16, 65536\] keys, got 24$' -- $B run --kernel decode --seq 1 --seq-kv 100 --page-size 24
expect under-min            2 '--page-size: must be a power of two in \[16, 65536\] keys, got 8' -- $B run --kernel decode --seq 1 --seq-kv 100 --page-size 8
expect over-the-cache       2 '--page-size: 128 keys a block is over the cache \(--seq-kv 100\)' -- $B run --kernel decode --seq 1 --seq-kv 100 --page-size 128
expect kernel-without-cap   2 "kernel naive cannot run this shape: no paged KV cache \(--page-size; capability 'paged'\)" -- $B run --kernel naive --seq 1 --seq-kv 100 --page-size 16
expect blocked-without-cap  2 "kernel blocked cannot run this shape: no paged KV cache" -- $B run --kernel blocked --seq 64 --seq-kv 100 --page-size 16
expect list-cap             0 'decode .*paged' -- $B list

# kvcache's paged model: allocated against used bytes; 100 and 1000 tokens at P 16 take
# 112 + 1008 tokens, 20 wasted; a contiguous cache sized for the longest wastes 900.
expect kvcache-csv          0 'llama3-8b,f16,2,16,70,1100,1120,144179200,146800640,2621440,0.017857' -- $B kvcache --model llama3-8b --context 100,1000 --page-size 16 --format csv
expect kvcache-contig       0 'llama3-8b,f16,2,0,0,1100,2000,' -- $B kvcache --model llama3-8b --context 100,1000 --page-size 16 --format csv
expect kvcache-table        0 '^16 +70 ' -- $B kvcache --model llama3-8b --context 100,1000 --page-size 16,64
expect kvcache-json         0 '"waste_fraction"' -- $B kvcache --model llama3-8b --context 100,1000 --page-size 16 --format json
expect kvcache-bad-page     2 '--page-size: must be a power of two' -- $B kvcache --page-size 24
expect kvcache-bad-list     2 '--page-size: expected a list' -- $B kvcache --page-size 16,,64
finish
