#!/usr/bin/env bash
# sh_layer.sh — `headroom layer` and `headroom crossover`: options, checks, output files.
SUITE=layer
source "$(dirname "$0")/lib.sh"
Q=(--reps 1 --min-time 0 --warmup 0)

expect help-layer        0 'usage: headroom layer'      -- $B layer --help
expect help-crossover    0 'usage: headroom crossover'  -- $B crossover --help
expect layer-check       0 'check: pass'                -- $B layer --seq 64 --d-model 128 --check "${Q[@]}"
expect layer-phases      0 'out_proj '                 -- $B layer --seq 32 --d-model 64 "${Q[@]}"
expect layer-gqa-causal  0 'H8/2 d32 causal'            -- $B layer --kernel gqa --seq 48 --d-model 256 --d-head 32 --kv-heads 2 --causal --check "${Q[@]}"
expect layer-csv         0 '^name,kernel,gemm,.*,phase,' -- $B layer --seq 32 --d-model 64 --format csv "${Q[@]}"
expect layer-json        0 '"run_name":[[:space:]]*"layer/flash/own/B1/N32/D64/H1/G1/d64/full/T[0-9]+/core"' -- $B layer --seq 32 --d-model 64 --format json "${Q[@]}"
# Typed cores: the layer rounds the projections into the types and judges the core on them.
expect layer-bf16-check  0 'check: pass'                -- $B layer --dtype bf16 --seq 64 --d-model 128 --check "${Q[@]}"
expect layer-bf16-format 0 '^format: max_rel [0-9.e-]+ nmse' -- $B layer --dtype bf16 --kv-dtype f16 --kernel gqa --kv-heads 2 --seq 70 --d-model 256 --d-head 32 --causal --check "${Q[@]}"
expect layer-bf16-header 0 'full bf16/kv bf16 \('       -- $B layer --dtype bf16 --seq 32 --d-model 64 "${Q[@]}"
expect layer-bf16-csv    0 '^layer/flash/own/B1/N32/D64/H1/G1/d64/bf16/full/T[0-9]+,.*,bf16,bf16,[0-9.e-]+$' -- $B layer --dtype bf16 --seq 32 --d-model 64 --check --format csv "${Q[@]}"
expect layer-bf16-json   0 '"kv_dtype":[[:space:]]*"f16"' -- $B layer --dtype f16 --seq 32 --d-model 64 --format json "${Q[@]}"
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
expect crossover-bad-dm  2 '--d-model: 100 is not a multiple of d_head 64' -- $B crossover --d-model 100 --out "$TMP/x2"
expect crossover-bad-k   2 "--kernels: unknown kernel 'nope'" -- $B crossover --kernels nope --out "$TMP/x3"
expect crossover-range   2 '--seq-min: 512 is larger'  -- $B crossover --seq-min 512 --seq-max 64 --out "$TMP/x4"

# mode = layer in a sweep: four rows per point, the crossover files, resume, wisdom.
lcfg=$TMP/tiny_layer.ini
cat > "$lcfg" <<'EOF'
[sweep]
mode = layer
kernels = flash, naive
d_model = 64
d_head = 32
seq = 16, 64
threads = 1
reps = 2
min_time = 0
warmup = 0
EOF
lo=$TMP/lsweep
expect sweep-layer-dry   0 '4 points: 4 to run, 0 skipped' -- $B sweep "$lcfg" --dry-run
expect sweep-layer-run   0 '16 rows \(4 new, 0 resumed\), 0 skipped' -- $B sweep "$lcfg" --out "$lo" --check
expect sweep-layer-csv   0 '^layer/naive/own/B1/N64/D64/H2/G2/d32/full/T1/out_proj,naive,1,2,2,64,64,32,0,bnhd,1,' -- cat "$lo/results.csv"
expect sweep-layer-json  0 '"run_name":[[:space:]]*"layer/flash/own/B1/N16/D64/H2/G2/d32/full/T1/total"' -- cat "$lo/results.json"
expect sweep-layer-xcsv  0 '^flash,64,64,[0-9.e-]+,[0-9.e-]+,' -- cat "$lo/crossover.csv"
expect sweep-layer-xtab  0 '^naive,64,[0-9]*,128\.0,' -- cat "$lo/crossover_table.csv"
expect sweep-layer-resume 0 '16 rows \(0 new, 16 resumed\)' -- $B sweep --resume "$lo"
printf '[sweep]\nmode = layer\nkernels = naive\nd_model = 64\nd_head = 32\nseq = 16..256*2\nreps = 1\nmin_time = 0\nwarmup = 0\nstop_after_crossover = true\n' > "$TMP/stop.ini"
# Whether the core overtakes the projections inside this range depends on timings, so
# only the run is asserted here; the stopping rule itself is unit-tested on synthetic
# rows (test_sweep_layer.c: layer_past_stops_after_the_crossing).
expect sweep-layer-stop  0 'rows \([0-9]+ new, 0 resumed\)' -- $B sweep "$TMP/stop.ini" --out "$TMP/lstop"
printf '[sweep]\nmode = layer\nkernels = flash, naive\nd_model = 64\nd_head = 32\nseq = 16\nthreads = 1\ndtype = f32, bf16\nreps = 1\nmin_time = 0\nwarmup = 0\n' > "$TMP/typed_layer.ini"
expect sweep-layer-typed-dry 0 '4 points: 3 to run, 1 skipped' -- $B sweep "$TMP/typed_layer.ini" --dry-run
expect sweep-layer-typed 0 '12 rows \(3 new, 0 resumed\), 1 skipped' -- $B sweep "$TMP/typed_layer.ini" --out "$TMP/ltyped" --check
expect sweep-layer-typed-row 0 '^layer/flash/own/B1/N16/D64/H2/G2/d32/bf16/full/T1/core,flash,' -- cat "$TMP/ltyped/results.csv"
printf '[sweep]\nheads = 2\ngemm = blas\n' > "$TMP/gemm_attn.ini"
expect sweep-gemm-attn   2 'gemm_attn.ini:3: gemm: only with mode = layer' -- $B sweep "$TMP/gemm_attn.ini" --dry-run

W=$TMP/layer_wisdom.json
TSHAPE=(--kernel flash --heads 2 --seq 64 --d-head 32 --threads 1 --budget 1 --min-time 0.002 --rounds 3)
expect tune-for-layer    0 'wisdom written' -- $B tune "${TSHAPE[@]}" --wisdom "$W"
expect sweep-wisdom      0 '' -- $B sweep "$lcfg" --filter flash --out "$TMP/lw" --wisdom "$W"
expect sweep-wisdom-row  0 '^layer/flash/own/B1/N64/D64/H2/G2/d32/full/T1/core,flash,.*,wisdom,' -- cat "$TMP/lw/results.csv"
expect sweep-wisdom-json 0 '"tune_source":[[:space:]]*"wisdom"' -- cat "$TMP/lw/results.json"
expect sweep-no-wisdom   0 '' -- $B sweep "$lcfg" --filter flash --out "$TMP/lnw" --wisdom "$W" --no-wisdom
if grep -q wisdom "$TMP/lnw/results.csv"; then fail sweep-no-wisdom-rows "wisdom used with --no-wisdom"; else ok sweep-no-wisdom-rows; fi
expect layer-wisdom      0 'core bq=[0-9]+ bkv=[0-9]+ \(wisdom\)' -- $B layer --d-model 64 --d-head 32 --seq 64 --threads 1 --wisdom "$W" "${Q[@]}"
expect layer-wisdom-flag 0 ',flag\+wisdom,' -- $B layer --d-model 64 --d-head 32 --seq 64 --threads 1 --block-q 16 --wisdom "$W" --format csv "${Q[@]}"
expect layer-no-wisdom   0 '\(default\)' -- $B layer --d-model 64 --d-head 32 --seq 64 --threads 1 --wisdom "$W" --no-wisdom "${Q[@]}"
echo '{bad' > "$TMP/bad_wisdom.json"
expect layer-bad-wisdom  2 'bad_wisdom.json: corrupt wisdom file' -- $B layer --wisdom "$TMP/bad_wisdom.json" "${Q[@]}"
expect sweep-bad-wisdom  2 'bad_wisdom.json: corrupt wisdom file' -- $B sweep "$lcfg" --dry-run --wisdom "$TMP/bad_wisdom.json"
finish
