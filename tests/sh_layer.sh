#!/usr/bin/env bash
# sh_layer.sh — `headroom layer` and `headroom crossover`: options, checks, output files.
SUITE=layer
source "$(dirname "$0")/lib.sh"
B=$HR_BIN
Q=(--reps 1 --min-time 0 --warmup 0)

expect help-layer        0 'usage: headroom layer'      -- $B layer --help
expect help-crossover    0 'usage: headroom crossover'  -- $B crossover --help
expect layer-check       0 'check: pass'                -- $B layer --seq 64 --d-model 128 --check "${Q[@]}"
expect layer-phases      0 'out_proj '                 -- $B layer --seq 32 --d-model 64 "${Q[@]}"
expect layer-gqa-causal  0 'H8/2 d32 causal'            -- $B layer --kernel gqa --seq 48 --d-model 256 --d-head 32 --kv-heads 2 --causal --check "${Q[@]}"
expect layer-csv         0 '^name,kernel,gemm,.*,phase,' -- $B layer --seq 32 --d-model 64 --format csv "${Q[@]}"
expect layer-json        0 '"run_name":[[:space:]]*"layer/flash/own/B1/N32/D64/H1/G1/d64/full/T[0-9]+/core"' -- $B layer --seq 32 --d-model 64 --format json "${Q[@]}"
expect layer-bad-kernel  2 "--kernel: unknown kernel 'nope'" -- $B layer --kernel nope
expect layer-bad-gemm    2 '--gemm: expected one of'     -- $B layer --gemm mkl
expect layer-heads       2 '--heads: d_model 100 is not a multiple' -- $B layer --d-model 100
expect layer-kv-divides  2 'kv'                          -- $B layer --d-model 256 --kv-heads 3
expect layer-budget      2 '--max-mem: the layer needs'  -- $B layer --seq 4096 --d-model 1024 --max-mem 1M
expect layer-decode-na   2 'cannot run this shape'       -- $B layer --kernel decode --seq 512
if $B list | grep -q '^blas '; then
    expect layer-blas-gemm 0 'check: pass'              -- $B layer --kernel blas --gemm blas --seq 40 --d-model 128 --causal --check "${Q[@]}"
fi

out="$TMP/xo"
expect crossover-run     0 'N\*_measured'  -- $B crossover --d-model 64 --kernels naive --seq-min 8 --seq-max 64 --reps 1 --min-time 0 --out "$out"
expect crossover-csv     0 '^kernel,d_model,N,proj_s,core_s,proj_gflops,core_gflops$' -- head -n 1 "$out/crossover.csv"
expect crossover-points  0 '^naive,64,8,'  -- cat "$out/crossover.csv"
expect crossover-table   0 '^naive,64,[0-9]*,128\.0,' -- cat "$out/crossover_table.csv"
expect crossover-bad-dm  2 "--d-model: '100' is not a positive multiple" -- $B crossover --d-model 100 --out "$TMP/x2"
expect crossover-bad-k   2 "--kernels: unknown kernel 'nope'" -- $B crossover --kernels nope --out "$TMP/x3"
expect crossover-range   2 '--seq-min: 512 is larger'  -- $B crossover --seq-min 512 --seq-max 64 --out "$TMP/x4"
finish
