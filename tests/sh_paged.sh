#!/usr/bin/env bash
# sh_paged.sh — the paged KV cache end to end: decode, flash and gqa through a shuffled block
# table against the oracle, the --page-size rule, names and results fields, kvcache's paged
# model, and decode-loop's growing paged cache.
SUITE=paged
source "$(dirname "$0")/lib.sh"

# check NAME COND...: one case from a shell condition.
check() {
    local name=$1
    shift
    if "$@"; then ok "$name"; else fail "$name" "failed: $*"; fi
}

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
# check --page-size P: the battery's caches of P keys or more, each through a paged cache
expect check-paged          0 '^check: 1 kernel\(s\), 1 type combination\(s\), [0-9]+ cases each through a paged cache and the variant batteries: [1-9][0-9]* pass, 0 warn, 0 fail' -- $B check --kernel decode --quick --kv-dtype q8_0 --page-size 64 --threads 2
expect check-paged-flash    0 '^flash +f32 softcap-30-page-16 +T2 +[1-9][0-9]* pass +0 warn +0 fail' -- $B check --kernel flash --quick --dtype f32 --softcap 30 --page-size 16 --threads 2
expect check-paged-no-cap   2 "^headroom check: kernel simd cannot run the paged battery: no paged KV cache \(--page-size; capability 'paged'\)$" -- $B check --kernel simd --quick --page-size 16
expect check-paged-skip     0 "^simd +paged +skipped: no paged KV cache" -- $B check --quick --dtype f32 --page-size 256 --threads 1
expect check-paged-bad      2 '^headroom check: --page-size: must be a power of two in \[16, 65536\] keys, got 24$' -- $B check --kernel decode --quick --page-size 24
expect check-paged-over     2 '^headroom check: --page-size: 8192 keys a block is over every cache of the quick battery \(at most 4099 keys\)$' -- $B check --kernel decode --quick --page-size 8192

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

# decode-loop --page-size: the cache grows a block at a time from the shuffled pool, the
# kernel reads through the table; the last step of every layer against the oracle, for
# every KV type and a length that ends inside a page.
loop=(decode-loop --heads 8 --kv-heads 2 --d-head 64 --layers 2 --prompt 100 --tokens 37 --threads 2 --rows 2)
for P in 16 64; do
    for kt in f32 f16 bf16 q8_0 q4_0; do
        expect "loop-p$P-$kt" 0 '^check: pass' -- $B "${loop[@]}" --page-size $P --kv-dtype $kt --check
    done
done
expect loop-bf16-q          0 '^check: pass' -- $B "${loop[@]}" --page-size 16 --dtype bf16 --check
# 137 tokens at P 16: 9 blocks a layer, 144 tokens allocated, 7 (4.86%) wasted
expect loop-table           0 '^paged KV cache: 16 keys a block, a pool of 18 blocks; 18 held at the end: .* \(4\.86% waste' -- $B "${loop[@]}" --page-size 16
expect loop-json-page       0 '"page_size":[[:space:]]*16' -- $B "${loop[@]}" --page-size 16 --format json
expect loop-json-bytes      0 '"allocated_bytes":[[:space:]]*294912,' -- $B "${loop[@]}" --page-size 16 --format json
expect loop-json-used       0 '"used_bytes":[[:space:]]*280576,' -- $B "${loop[@]}" --page-size 16 --format json
expect loop-csv-field       0 ',16$' -- $B "${loop[@]}" --page-size 16 --format csv
expect loop-csv-contig      0 ',0$' -- $B "${loop[@]}" --format csv
check loop-contig-no-page sh -c "! $B ${loop[*]} --format json | grep -q page_size"
# The bytes are kvcache --page-size's: the same preset and length, the same allocated bytes.
kv_alloc=$($B kvcache --model llama3-8b --context 103 --page-size 16 --kv-dtype q8_0 --format csv | awk -F, '$4 == 16 {print $9}')
loop_alloc=$($B decode-loop --model llama3-8b --prompt 100 --tokens 3 --page-size 16 --kv-dtype q8_0 --threads 2 --format json |
    sed -n 's/.*"allocated_bytes":[[:space:]]*\([0-9]*\).*/\1/p')
check loop-as-kvcache test -n "$kv_alloc" -a "$kv_alloc" = "$loop_alloc"
expect loop-not-power-of-two 2 '^headroom decode-loop: --page-size: must be a power of two in \[16, 65536\] keys, got 24$' -- $B "${loop[@]}" --page-size 24
expect loop-under-min       2 '^headroom decode-loop: --page-size: must be a power of two in \[16, 65536\] keys, got 8$' -- $B "${loop[@]}" --page-size 8
expect loop-over-the-cache  2 '^headroom decode-loop: --page-size: 256 keys a block is over the cache \(prompt \+ tokens = 137\)$' -- $B "${loop[@]}" --page-size 256
expect loop-no-cap          2 "^headroom decode-loop: kernel omp cannot run this shape: no paged KV cache" -- $B "${loop[@]}" --kernel omp --page-size 16

# Continuous batching on a paged pool: sequences take blocks as they grow and give them back
# when they leave, so blocks are taken more often than the pool holds them; the most held at
# once is what the live sequences needed (counted apart from the pool), and none at the end.
S=(--heads 4 --kv-heads 2 --d-head 32 --threads 2 --requests 12 --len-max 500 --out-max 60 --max-batch 3)
for kt in f32 q8_0 q4_0 bf16; do
    expect "cont-p16-$kt" 0 '^check: a step of 3 sequences: pass' -- $B decode-loop "${S[@]}" --page-size 16 --kv-dtype $kt --check
done
line=$($B decode-loop "${S[@]}" --page-size 16 | grep '^paged KV cache')
read -r pool peak need taken held <<<"$(printf '%s' "$line" |
    sed -n 's/.*a pool of \([0-9]*\) blocks: at most \([0-9]*\) held (the live sequences needed at most \([0-9]*\)), \([0-9]*\) taken in all, \([0-9]*\) held at the end/\1 \2 \3 \4 \5/p')"
check cont-line      test -n "$held"
check cont-none-held test "$held" = 0
check cont-reused    test "${taken:-0}" -gt "${pool:-0}"
check cont-peak      test "${peak:-1}" -le "$(( ${need:-0} + 3 ))"
check cont-peak-need test "${peak:-0}" -ge "${need:-1}"
expect cont-bad-page 2 '^headroom decode-loop: --page-size: must be a power of two in \[16, 65536\] keys, got 48$' -- $B decode-loop "${S[@]}" --page-size 48
finish
