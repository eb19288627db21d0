# sh_hostile.sh — the bad-input battery: every row is hostile input that must give its
# exit status, one line on stderr naming what is wrong and where (flag or file:line),
# and no crash, sanitizer report or hang (each case runs under a timeout).
SUITE=hostile
. "$(dirname "$0")/lib.sh"

HOSTILE=$(cd "$(dirname "$0")/hostile" && pwd) # input files (tests/hostile/README)
export HR_BIN HOSTILE TMP
# A case may take this long; a hang is a failure. Sanitized builds run slower.
LIMIT=${HR_HOSTILE_TIMEOUT:-10}
[ "${HR_SANITIZE:-0}" = 1 ] && LIMIT=60

mkdir -p "$TMP/adir"
: > "$TMP/afile"
S=$HOSTILE/small.json

# name | status | regex the last stderr line must match | command (bash; $B is the
# binary, $HOSTILE the input files, $TMP a scratch directory; the command may contain
# '|', the other fields may not). Status-2 rows must print exactly one line on stderr.
# Rows starting with ulimit cap the address space, so an allocation the budget let
# through fails loudly instead of swapping; they are skipped under ASan, which reserves
# terabytes of shadow memory.
run_table() {
    local name want pat cmd err rc lines
    while IFS='|' read -r name want pat cmd; do
        case "$name" in '' | '#'*) continue ;; esac
        if [ "${HR_SANITIZE:-0}" = 1 ] && [ "${cmd#ulimit}" != "$cmd" ]; then
            skip "$name" "under ASan: ulimit -v"
            continue
        fi
        timeout -k 2 "$LIMIT" bash -c "B='$B'; S='$S'; $cmd" > "$TMP/out" 2> "$TMP/err"
        rc=$?
        err=$(cat "$TMP/err")
        lines=$(grep -c '' "$TMP/err")
        if [ "$rc" = 124 ] || [ "$rc" = 137 ]; then
            fail "$name" "timed out after ${LIMIT}s (a hang): $cmd"
        elif [ "$rc" != "$want" ]; then
            fail "$name" "exit $rc, expected $want: $(printf '%s' "$err" | tail -n 2 | tr '\n' ' ')"
        elif [ "$want" = 2 ] && [ "$lines" != 1 ]; then
            fail "$name" "expected one error line on stderr, got $lines: $(printf '%s' "$err" | head -n 3 | tr '\n' ' ')"
        elif ! printf '%s' "$err" | tail -n 1 | grep -Eq -- "$pat"; then
            fail "$name" "stderr does not match /$pat/: $(printf '%s' "$err" | tail -n 1)"
        elif grep -Eq 'Sanitizer|runtime error|Segmentation|core dumped' "$TMP/err"; then
            fail "$name" "sanitizer or crash report: $(grep -Em1 'Sanitizer|runtime error' "$TMP/err")"
        else
            ok "$name"
            [ "${HR_HOSTILE_VERBOSE:-0}" = 1 ] && echo "     $lines line(s): $(tail -n 1 "$TMP/err")"
        fi
    done
}

run_table <<'EOF'
# ---- flags: unknown, malformed, out of range ------------------------------------------------
unknown_command|2|^headroom: unknown command 'frobnicate'|$B frobnicate
unknown_flag|2|^headroom run: unknown option '--sequence'|$B run --kernel naive --sequence 64
unknown_kernel|2|^headroom run: --kernel: unknown kernel 'nosuch'|$B run --kernel nosuch
unknown_kernel_check|2|^headroom check: --kernel: unknown kernel 'nosuch'|$B check --kernel nosuch
missing_value|2|^headroom run: --seq: missing value|$B run --kernel naive --seq
flag_takes_no_value|2|^headroom run: --causal: takes no value|$B run --kernel naive --causal=yes
seq_not_numeric|2|^headroom run: --seq: expected an integer .*got 'abc'|$B run --kernel naive --seq abc
seq_float|2|^headroom run: --seq: expected an integer .*got '1e3'|$B run --kernel naive --seq 1e3
seq_negative|2|^headroom run: --seq: must be in \[1, 16777216\], got -5|$B run --kernel naive --seq -5
seq_zero|2|^headroom run: --seq: must be in \[1, 16777216\], got 0|$B run --kernel naive --seq 0
seq_int_overflow|2|^headroom run: --seq: expected an integer .*got '99999999999999999999'|$B run --kernel naive --seq 99999999999999999999
seq_beyond_limit|2|^headroom run: --seq: must be in \[1, 16777216\], got 16777217|$B run --kernel naive --seq 16777217
dhead_beyond_limit|2|^headroom run: --d-head: must be in \[1, 4096\], got 5000|$B run --kernel naive --d-head 5000
batch_zero|2|^headroom run: --batch: must be in \[1, 4096\]|$B run --kernel naive --batch 0
empty_value|2|^headroom run: --seq-kv: expected a number, got an empty string|$B run --kernel naive --seq-kv=
kv_heads_not_dividing|2|^headroom run: --kv-heads: 3 does not divide --heads 8|$B run --kernel naive --heads 8 --kv-heads 3
kv_heads_above_heads|2|^headroom run: --kv-heads: 16 does not divide --heads 8|$B run --kernel naive --heads 8 --kv-heads 16
scale_nan|2|^headroom run: --scale: expected a number, got 'nan'|$B run --kernel naive --scale nan
scale_inf|2|^headroom run: --scale: expected a number, got 'inf'|$B run --kernel naive --scale inf
scale_negative|2|^headroom run: --scale: must be in|$B run --kernel naive --scale -1
threads_zero|2|^headroom run: --threads: must be in \[1, 1024\], got 0|$B run --kernel naive --threads 0
threads_absurd|2|^headroom run: --threads: must be in \[1, 1024\], got 100000|$B run --kernel naive --threads 100000
reps_zero|2|^headroom run: --reps: must be in|$B run --kernel naive --reps 0
min_time_negative|2|^headroom run: --min-time: must be in \[0, 3600\]|$B run --kernel naive --min-time -1
bad_layout|2|^headroom run: --layout: expected one of bhnd.bnhd, got 'bshd'|$B run --kernel naive --layout bshd
bad_max_mem|2|^headroom run: --max-mem: expected a number of bytes|$B run --kernel naive --max-mem 5X
block_q_absurd|2|^headroom run: --block-q: must be in|$B run --kernel flash --block-q 99999999
not_applicable|2|^headroom run: kernel decode cannot run this shape|$B run --kernel decode --seq 512
# ---- sizes whose products overflow, or that do not fit ---------------------------------------
overflow_q|2|^headroom run: --seq: Q/O size B\*Hq\*Nq\*d = .* overflows the 2\^48 limit|$B run --kernel naive --batch 4096 --heads 4096 --seq 16777216 --d-head 4096
overflow_kv|2|^headroom run: --seq-kv: K/V size .* overflows|$B run --kernel flash --seq 1 --seq-kv 16777216 --batch 4096 --heads 4096 --d-head 4096
overflow_tune|2|^headroom tune: --seq: Q/O size .* overflows|$B tune --kernel flash --batch 4096 --heads 4096 --seq 16777216 --d-head 4096
overflow_layer|2|^headroom layer: --seq: Q/O size .* overflows|$B layer --d-model 65536 --seq 16777216 --batch 4096 --d-head 4096
over_budget_naive_scores|2|^headroom run: --max-mem: naive needs .* MiB .*over the budget|$B run --kernel naive --seq 1000000 --heads 64
over_small_budget|2|^headroom run: --max-mem: naive needs .* over the budget of 1.0 MiB|$B run --kernel naive --seq 65536 --max-mem 1M
over_budget_decode_loop|2|^headroom decode-loop: --max-mem: the KV cache and buffers need|$B decode-loop --prompt 1000000 --heads 64 --kv-heads 64 --layers 32 --max-mem 100G
ulimit_tensors|2|^headroom run: cannot allocate .* MiB for Q, K, V and O|ulimit -v 1000000; $B run --kernel flash --seq 100000 --heads 64 --max-mem 100G
ulimit_workspace|2|^headroom run: cannot allocate .* MiB of workspace|ulimit -v 1000000; $B run --kernel naive --seq 30000 --heads 2 --max-mem 100G
ulimit_exact_2p48|2|^headroom run: cannot allocate .* for Q, K, V and O|ulimit -v 1000000; $B run --kernel gqa --seq 16777216 --heads 4096 --batch 4096 --d-head 1 --max-mem 1e18 --causal
ulimit_layer|2|^headroom layer: cannot allocate .* MiB for the layer|ulimit -v 1000000; $B layer --d-model 4096 --seq 100000 --max-mem 100G
ulimit_tune|2|^headroom tune: cannot allocate .* for Q, K, V and O|ulimit -v 1000000; $B tune --kernel flash --seq 100000 --heads 64 --max-mem 100G --budget 1 --dry-run
ulimit_triad|2|^headroom roofline: cannot allocate .* for the triad arrays|ulimit -v 1000000; $B roofline --quick --triad-bytes 100G --out $TMP/ceil.json
save_into_a_file|2|^headroom run: .*/afile/sub: cannot create|$B run --kernel naive --seq 8 --reps 1 --min-time 0 --warmup 0 --save $TMP/afile/sub
# ---- sweep configs ------------------------------------------------------------------------
sweep_no_config|2|^headroom sweep: CONFIG: required|$B sweep
sweep_nonexistent|2|^headroom sweep: .*/nosuch.ini: cannot read sweep config \(No such file|$B sweep $HOSTILE/nosuch.ini --dry-run
sweep_directory|2|^headroom sweep: .*/adir: not a regular file|$B sweep $TMP/adir --dry-run
sweep_empty|2|^headroom sweep: .*/empty: no settings|$B sweep $HOSTILE/empty --dry-run
sweep_only_header|2|^headroom sweep: .*/only_header.ini: no settings|$B sweep $HOSTILE/only_header.ini --dry-run
sweep_binary|2|^headroom sweep: .*/binary.bin:1: NUL byte in a sweep config|$B sweep $HOSTILE/binary.bin --dry-run
sweep_results_as_config|2|^headroom sweep: .*/small.json:1: key outside a section|$B sweep $S --dry-run
sweep_dup_key|2|^headroom sweep: .*/dup_key.ini:5: key 'seq' given twice \(first on line 3\)|$B sweep $HOSTILE/dup_key.ini --dry-run
sweep_endless_geometric|2|^headroom sweep: .*/endless_geometric.ini:2: seq: range 1..100\*1 never ends|$B sweep $HOSTILE/endless_geometric.ini --dry-run
sweep_endless_arith|2|^headroom sweep: .*/endless_arith.ini:2: heads: range 1..8\+0 never ends|$B sweep $HOSTILE/endless_arith.ini --dry-run
sweep_backwards|2|^headroom sweep: .*/backwards.ini:2: seq: range 512..64 ends below its start|$B sweep $HOSTILE/backwards.ini --dry-run
sweep_huge_step|0|^1 points: 1 to run|$B sweep $HOSTILE/huge_step.ini --dry-run 2>&1 | tail -n 1 >&2
sweep_all_skipped|2|^headroom sweep: nothing measured: all 1 points were skipped|$B sweep $HOSTILE/all_skipped.ini --out $TMP/allskip 2>&1 | tail -n 1 >&2; exit "${PIPESTATUS[0]}"
sweep_too_many_values|2|^headroom sweep: .*/too_many_values.ini:2: seq: .*more than 64 values|$B sweep $HOSTILE/too_many_values.ini --dry-run
sweep_huge_product|2|^headroom sweep: .*/huge_product.ini: the cartesian product has [0-9]+ points, more than 20000|$B sweep $HOSTILE/huge_product.ini --dry-run
sweep_unknown_key|2|^headroom sweep: .*/unknown_key.ini:3: unknown key 'sequence'|$B sweep $HOSTILE/unknown_key.ini --dry-run
sweep_unknown_section|2|^headroom sweep: .*/unknown_section.ini:4: section 'swep'|$B sweep $HOSTILE/unknown_section.ini --dry-run
sweep_key_outside|2|^headroom sweep: .*/key_outside.ini:1: key outside a section|$B sweep $HOSTILE/key_outside.ini --dry-run
sweep_not_ini|2|^headroom sweep: .*/not_ini.ini:3: not an INI line|$B sweep $HOSTILE/not_ini.ini --dry-run
sweep_long_line|2|^headroom sweep: .*/long_line.ini:2: seq: expected a comma-separated list of at most 64 values|$B sweep $HOSTILE/long_line.ini --dry-run
sweep_int_overflow|2|^headroom sweep: .*/int_overflow.ini:2: seq: '99999999999999999999' is not an integer|$B sweep $HOSTILE/int_overflow.ini --dry-run
sweep_negative|2|^headroom sweep: .*/negative.ini:2: heads: -8 is outside|$B sweep $HOSTILE/negative.ini --dry-run
sweep_zero|2|^headroom sweep: .*/zero.ini:2: d_head: 0 is outside|$B sweep $HOSTILE/zero.ini --dry-run
sweep_beyond_limit|2|^headroom sweep: .*/beyond_limit.ini:2: d_head: 8192 is outside \[1, 4096\]|$B sweep $HOSTILE/beyond_limit.ini --dry-run
sweep_empty_value|2|^headroom sweep: .*/empty_value.ini:2: seq: empty value|$B sweep $HOSTILE/empty_value.ini --dry-run
sweep_unknown_kernel|2|^headroom sweep: .*/unknown_kernel.ini:2: kernels: unknown kernel 'flashy'|$B sweep $HOSTILE/unknown_kernel.ini --dry-run
sweep_bad_bool|2|^headroom sweep: .*/bad_bool.ini:2: causal: 'maybe'|$B sweep $HOSTILE/bad_bool.ini --dry-run
sweep_bad_kv|2|^headroom sweep: .*/bad_kv.ini:2: kv_heads: 'ratio:0'|$B sweep $HOSTILE/bad_kv.ini --dry-run
sweep_bad_bytes|2|^headroom sweep: .*/bad_bytes.ini:2: max_mem: 'lots' is not a byte count|$B sweep $HOSTILE/bad_bytes.ini --dry-run
sweep_heads_and_dmodel|2|^headroom sweep: .*/heads_and_dmodel.ini:3: give heads or d_model, not both|$B sweep $HOSTILE/heads_and_dmodel.ini --dry-run
sweep_layer_no_dmodel|2|^headroom sweep: .*/layer_no_dmodel.ini:2: mode = layer needs d_model|$B sweep $HOSTILE/layer_no_dmodel.ini --dry-run
resume_bad_row|2|^headroom sweep: .*/rb/rows.jsonl:2: not a headroom row: field 'check.verdict' is not 0, 1 or 2$|cp -r $HOSTILE/resume_bad $TMP/rb && $B sweep --resume $TMP/rb
resume_garbage_row|2|^headroom sweep: .*/rg/rows.jsonl:1: not a headroom row$|mkdir -p $TMP/rg && cp $HOSTILE/resume_bad/tiny.ini $TMP/rg/ && printf 'garbage\nmore\n' > $TMP/rg/rows.jsonl && $B sweep --resume $TMP/rg
sweep_resume_nothing|2|^headroom sweep: |$B sweep --resume $TMP/adir
tune_config_empty|2|^headroom tune: .*/empty: no settings|$B tune --kernel flash --config $HOSTILE/empty
tune_config_endless|2|^headroom tune: .*/endless_geometric.ini:2: seq: range 1..100\*1 never ends|$B tune --kernel flash --config $HOSTILE/endless_geometric.ini
tune_config_binary|2|^headroom tune: .*/binary.bin:1: NUL byte in a sweep config|$B tune --kernel flash --config $HOSTILE/binary.bin
tune_bad_margin|2|^headroom tune: --margin: must be in \[0, 1\], got 5|$B tune --kernel flash --margin 5
tune_untunable|2|^headroom tune: --kernel: naive declares no tunable parameters|$B tune --kernel naive
# ---- results files: compare and report ---------------------------------------------------------
compare_one_file|2|^headroom compare: expected two results files|$B compare $S
compare_nonexistent|2|^headroom compare: .*/nosuch.json: cannot read results file \(No such file|$B compare $HOSTILE/nosuch.json $S
compare_directory|2|^headroom compare: .*/adir/results.json: cannot read results file|$B compare $TMP/adir $S
compare_empty|2|^headroom compare: .*/empty: empty file, not JSON|$B compare $HOSTILE/empty $S
compare_binary|2|^headroom compare: .*/binary.bin:1: NUL byte in a results file|$B compare $S $HOSTILE/binary.bin
compare_truncated|2|^headroom compare: .*/truncated.json: JSON ends before its closing brackets|$B compare $HOSTILE/truncated.json $S
compare_not_object|2|^headroom compare: .*/not_object.json: not a results file|$B compare $S $HOSTILE/not_object.json
compare_no_rows|2|^headroom compare: .*/no_benchmarks.json: no benchmark rows|$B compare $HOSTILE/no_benchmarks.json $S
compare_name_not_string|2|^headroom compare: .*/name_not_string.json: benchmarks\[0\] has no "name"|$B compare $S $HOSTILE/name_not_string.json
compare_bad_unit|2|^headroom compare: .*/bad_unit.json: benchmark 'flash/N64': unknown time_unit 'fortnights'|$B compare $S $HOSTILE/bad_unit.json
compare_time_string|2|^headroom compare: .*/time_string.json: benchmark 'flash/N64': real_time is not a number|$B compare $S $HOSTILE/time_string.json
compare_time_zero|2|^headroom compare: .*/zero_time.json: .*real_time must be a positive number, got 0|$B compare $S $HOSTILE/zero_time.json
compare_time_inf|2|^headroom compare: .*/time_inf.json: .*real_time must be a positive number, got inf|$B compare $S $HOSTILE/time_inf.json
compare_deep_nesting|2|^headroom compare: .*/deep.json: invalid JSON|$B compare $S $HOSTILE/deep.json
compare_config_as_results|2|^headroom compare: .*/dup_key.ini: invalid JSON at line 1|$B compare $S $HOSTILE/dup_key.ini
compare_threshold_negative|2|^headroom compare: --threshold: must be in \[0, 1000\], got -5|$B compare $S $S --threshold -5
compare_threshold_text|2|^headroom compare: --threshold: expected a number, got 'five'|$B compare $S $S --threshold five
compare_alpha_out_of_range|2|^headroom compare: --alpha: must be in|$B compare $S $S --alpha 2
compare_bad_regex|2|^headroom compare: .*--filter|$B compare $S $S --filter '('
# ---- export (CI trackers) and history ------------------------------------------------------------
export_no_to|2|^headroom export: --to: required|$B export $S
export_bad_to|2|^headroom export: --to: |$B export $S --to jenkins
export_bad_metric|2|^headroom export: --metric: |$B export $S --to bencher --metric speed
export_two_files|2|^headroom export: unexpected argument|$B export $S $S --to bencher
export_nonexistent|2|^headroom export: .*/nosuch.json: cannot read results file|$B export $HOSTILE/nosuch.json --to bencher
export_directory|2|^headroom export: .*/adir/results.json: cannot read results file|$B export $TMP/adir --to bencher
export_binary|2|^headroom export: .*/binary.bin:1: NUL byte|$B export $HOSTILE/binary.bin --to bencher
export_truncated|2|^headroom export: .*/truncated.json: JSON ends before|$B export $HOSTILE/truncated.json --to github-action-benchmark
export_time_zero|2|^headroom export: .*/zero_time.json: benchmark 'flash/N64': real_time must be a positive number, got 0|$B export $HOSTILE/zero_time.json --to github-action-benchmark --metric time
export_time_inf|2|^headroom export: .*/time_inf.json: .*real_time must be a positive number, got inf|$B export $HOSTILE/time_inf.json --to bencher --metric time
export_no_flops|2|^headroom export: .*: no FLOP count .*use --metric time|$B export $S --to bencher
history_no_dir|2|^headroom history: DIR: expected one or more|$B history
history_nonexistent|2|^headroom history: .*/nosuch: no such file or directory|$B history $HOSTILE/nosuch
history_empty_dir|2|^headroom history: .*/adir: no results.json in it or in its subdirectories|$B history $TMP/adir
history_one_run|2|^headroom history: 1 run found; a history needs 2 or more|$B history $S $S
history_truncated|2|^headroom history: .*/truncated.json: JSON ends before|$B history $S $HOSTILE/truncated.json
history_time_zero|2|^headroom history: .*/zero_time.json: benchmark 'flash/N64': real_time must be a positive number, got 0|$B history $S $HOSTILE/zero_time.json --no-plot
history_k_negative|2|^headroom history: --k: must be in|$B history $S $S --k -1
history_window_zero|2|^headroom history: --window: must be in|$B history $S $S --window 0
history_bad_regex|2|^headroom history: --filter: invalid regex|$B history $S $HOSTILE/zero_time.json --filter '('
compare_p_asym_value|2|^headroom compare: --p-asymptotic: takes no value|$B compare $S $S --p-asymptotic=yes
report_nonexistent|2|^headroom report: .*/nosuch.json: No such file|$B report $HOSTILE/nosuch.json --no-charts --out $TMP/rep
report_directory_without_results|2|^headroom report: .*/adir: no results.json in this directory|$B report $TMP/adir --no-charts --out $TMP/rep
report_empty|2|^headroom report: .*/empty: |$B report $HOSTILE/empty --no-charts --out $TMP/rep
report_binary|2|^headroom report: .*/binary.bin:1: NUL byte in a results file|$B report $HOSTILE/binary.bin --no-charts --out $TMP/rep
report_truncated|2|^headroom report: .*/truncated.json: |$B report $HOSTILE/truncated.json --no-charts --out $TMP/rep
report_no_rows|2|^headroom report: .*/small.json: no benchmark rows with a kernel and shape|$B report $S --no-charts --out $TMP/rep
# ---- model presets (kvcache, decode-loop) ---------------------------------------------------
kvcache_nonexistent|2|^headroom kvcache: .*/nosuch.ini: cannot read model presets file|$B kvcache --models $HOSTILE/nosuch.ini
kvcache_directory|2|^headroom kvcache: .*/adir: not a regular file|$B kvcache --models $TMP/adir
kvcache_empty|2|^headroom kvcache: .*/empty: no \[model\] sections|$B kvcache --models $HOSTILE/empty
kvcache_binary|2|^headroom kvcache: .*/binary.bin:[0-9]+: |$B kvcache --models $HOSTILE/binary.bin
kvcache_dup_key|2|^headroom kvcache: .*/models_dup_key.ini:7: \[tiny\]: duplicate key 'heads'|$B kvcache --models $HOSTILE/models_dup_key.ini
kvcache_dup_section|2|^headroom kvcache: .*/models_dup_section.ini:7: duplicate model \[tiny\]|$B kvcache --models $HOSTILE/models_dup_section.ini
kvcache_not_dividing|2|^headroom kvcache: .*/models_nodiv.ini:1: \[tiny\]: kv_heads does not divide heads|$B kvcache --models $HOSTILE/models_nodiv.ini
kvcache_missing_key|2|^headroom kvcache: .*/models_missing.ini:1: \[tiny\]: missing key 'heads'|$B kvcache --models $HOSTILE/models_missing.ini
kvcache_unknown_key|2|^headroom kvcache: .*/models_unknown_key.ini:7: \[tiny\]: unknown key 'rope'|$B kvcache --models $HOSTILE/models_unknown_key.ini
kvcache_huge_context|2|^headroom kvcache: .*/models_huge.ini:7: \[tiny\]: context: expected an integer|$B kvcache --models $HOSTILE/models_huge.ini
kvcache_long_line|0|^tiny: 2 layers|$B kvcache --models $HOSTILE/models_long_line.ini | head -n 1 >&2
kvcache_unknown_model|2|^headroom kvcache: --model: unknown model 'nosuch'|$B kvcache --model nosuch
kvcache_context_zero|2|^headroom kvcache: --context: token counts must be in|$B kvcache --context 0
kvcache_context_garbage|2|^headroom kvcache: --context: expected a list of token counts|$B kvcache --context 1,,2
decode_loop_bad_models|2|^headroom decode-loop: .*/models_nodiv.ini:1: |$B decode-loop --models $HOSTILE/models_nodiv.ini --model tiny
# ---- other readers: wisdom, ceilings ---------------------------------------------------------
wisdom_binary|2|^headroom run: .*/binary.bin:1: NUL byte in a wisdom file|$B run --kernel flash --seq 64 --reps 1 --min-time 0 --warmup 0 --wisdom $HOSTILE/binary.bin
wisdom_truncated|2|^headroom run: .*/truncated.json: corrupt wisdom file \(JSON ends before its closing brackets|$B run --kernel flash --seq 64 --reps 1 --min-time 0 --warmup 0 --wisdom $HOSTILE/truncated.json
plot_bad_ceilings|2|^headroom plot: .*/binary.bin:1: NUL byte in a ceilings file|$B plot $TMP/adir --ceilings $HOSTILE/binary.bin --out $TMP/plots
roofline_bad_threads|2|^headroom roofline: --threads: |$B roofline --threads 5-1
# ---- element types (--dtype, --kv-dtype, dtype/kv_dtype in configs) ----------------------------
dtype_unknown|2|^headroom run: --dtype: expected one of f32.bf16.f16, got 'fp8'|$B run --kernel flash --dtype fp8
dtype_block_format|2|^headroom run: --dtype: expected one of f32.bf16.f16, got 'q4_0'|$B run --kernel flash --dtype q4_0
kv_dtype_unknown|2|^headroom run: --kv-dtype: expected one of f32.bf16.f16.q8_0.q4_0, got 'int4'|$B run --kernel flash --kv-dtype int4
kv_dtype_d_not_32|2|^headroom run: --kv-dtype: q4_0 stores blocks of 32 values along d; --d-head 48 is not a multiple|$B run --kernel flash --kv-dtype q4_0 --d-head 48
kv_dtype_d_not_32_tune|2|^headroom tune: --kv-dtype: q8_0 stores blocks of 32 values along d|$B tune --kernel flash --kv-dtype q8_0 --d-head 80
dtype_kernel_cannot|2|^headroom run: kernel naive cannot run this shape: no bf16 Q/K/V \(--dtype\)|$B run --kernel naive --dtype bf16
kv_dtype_kernel_cannot|2|^headroom run: kernel naive cannot run this shape: no q8_0 K/V cache \(--kv-dtype\)|$B run --kernel naive --seq 1 --seq-kv 64 --kv-dtype q8_0
dtype_check_filter_cannot|2|^headroom check: --dtype: kernel naive cannot run bf16: no bf16 Q/K/V|$B check --kernel naive --dtype bf16
decode_loop_kv_dtype_cannot|2|^headroom decode-loop: kernel naive cannot run this shape: no q4_0 K/V cache|$B decode-loop --kernel naive --kv-dtype q4_0 --prompt 8 --tokens 2
decode_loop_kv_dtype_d|2|^headroom decode-loop: --kv-dtype: q8_0 stores blocks of 32 values|$B decode-loop --kv-dtype q8_0 --d-head 40 --prompt 8 --tokens 2
layer_dtype_kernel_cannot|2|^headroom layer: kernel naive cannot run this shape: no bf16 Q/K/V \(--dtype\)|$B layer --kernel naive --dtype bf16
layer_kv_dtype_kernel_cannot|2|^headroom layer: kernel flash cannot run this shape: no q8_0 K/V cache|$B layer --kv-dtype q8_0
layer_kv_dtype_d|2|^headroom layer: --kv-dtype: q8_0 stores blocks of 32 values|$B layer --kernel decode --d-model 80 --d-head 40 --kv-dtype q8_0
kv_dtype_no_cache_crossover|2|^headroom crossover: --kv-dtype: this command takes no element types|$B crossover --kv-dtype q8_0 --out $TMP/co
kv_dtype_no_cache_roofline|2|^headroom roofline: --kv-dtype: this command takes no element types|$B roofline --kv-dtype f16
dtype_no_operands_compare|2|^headroom compare: --dtype: this command takes no element types|$B compare $S $S --dtype bf16
sweep_dtype_block|2|^headroom sweep: .*/dtype_block.ini:2: dtype: 'q8_0': expected f32, bf16 or f16|$B sweep $HOSTILE/dtype_block.ini --dry-run
sweep_kv_dtype_unknown|2|^headroom sweep: .*/kv_dtype_unknown.ini:2: kv_dtype: 'int4': expected f32, bf16, f16, q8_0 or q4_0|$B sweep $HOSTILE/kv_dtype_unknown.ini --dry-run
crossover_backwards|2|^headroom crossover: --seq-min: 100 is larger than --seq-max 10|$B crossover --seq-min 100 --seq-max 10 --out $TMP/co
EOF

# ---- thread counts: every source passes the one limit (harness/base/threads.c) ---------------
# OMP_* are refused before libgomp reads them (main.c's .preinit_array), so no libgomp line.
run_table <<'EOF'
env_threads_huge|2|^headroom: OMP_NUM_THREADS='100000': more than headroom's limit of 1024 threads$|OMP_NUM_THREADS=100000 $B run --kernel flash --seq 64 --reps 1 --min-time 0 --warmup 0
env_threads_5000|2|^headroom: OMP_NUM_THREADS='5000': more than|OMP_NUM_THREADS=5000 $B run --kernel flash --seq 64 --reps 1 --min-time 0 --warmup 0
env_threads_overflow|2|^headroom: OMP_NUM_THREADS='99999999999999999999999': |OMP_NUM_THREADS=99999999999999999999999 $B list
env_threads_garbage|2|^headroom: OMP_NUM_THREADS='lots': expected a positive thread count or an OpenMP list like 4,2$|OMP_NUM_THREADS=lots $B list
env_threads_empty|2|^headroom: OMP_NUM_THREADS='': expected|OMP_NUM_THREADS= $B list
env_threads_zero|2|^headroom: OMP_NUM_THREADS='0': expected|OMP_NUM_THREADS=0 $B run --kernel flash --seq 64
env_threads_negative|2|^headroom: OMP_NUM_THREADS='-4': expected|OMP_NUM_THREADS=-4 $B run --kernel flash --seq 64
env_threads_list_huge|2|^headroom: OMP_NUM_THREADS='2,100000': more than|OMP_NUM_THREADS=2,100000 $B list
env_threads_list_trailing|2|^headroom: OMP_NUM_THREADS='2,': expected|OMP_NUM_THREADS=2, $B list
env_threads_list_first|0|^1$|OMP_NUM_THREADS=1,4 $B run --kernel flash --seq 64 --reps 1 --min-time 0 --warmup 0 --no-wisdom --format csv | cut -d, -f11 | tail -n 1 >&2
env_limit_garbage|2|^headroom: OMP_THREAD_LIMIT='none': expected a positive thread count$|OMP_THREAD_LIMIT=none $B list
env_limit_zero|2|^headroom: OMP_THREAD_LIMIT='0': expected|OMP_THREAD_LIMIT=0 $B run --kernel flash --seq 64
env_limit_under_num|2|^headroom: OMP_NUM_THREADS=4 is over OMP_THREAD_LIMIT=2$|OMP_NUM_THREADS=4 OMP_THREAD_LIMIT=2 $B list
env_limit_huge_ok|0|^[0-9]+ points: |OMP_THREAD_LIMIT=100000 $B sweep configs/ci.ini --dry-run 2>&1 | tail -n 1 >&2
env_limit_flag|2|^headroom run: threads: 2 threads, over OMP_THREAD_LIMIT=1$|OMP_THREAD_LIMIT=1 $B run --kernel flash --seq 64 --threads 2 --reps 1 --min-time 0 --warmup 0 --no-wisdom
env_limit_layer|2|^headroom layer: threads \(GEMM\): 2 threads, over OMP_THREAD_LIMIT=1$|OMP_THREAD_LIMIT=1 $B layer --kernel flash --seq 64 --d-model 128 --threads 2
env_limit_check|2|^headroom check: --threads: 2 threads, over OMP_THREAD_LIMIT=1$|OMP_THREAD_LIMIT=1 $B check --quick --threads 2
env_limit_tune|2|^headroom tune: --threads: 2 threads, over OMP_THREAD_LIMIT=1$|OMP_THREAD_LIMIT=1 HEADROOM_WISDOM=$TMP/tw.json $B tune --kernel flash --seq 64 --threads 2
env_limit_roofline|2|^headroom roofline: --threads 2: 2 threads, over OMP_THREAD_LIMIT=1$|OMP_THREAD_LIMIT=1 $B roofline --quick --threads 2
env_limit_default|0|^1$|OMP_THREAD_LIMIT=1 $B run --kernel flash --seq 64 --reps 1 --min-time 0 --warmup 0 --no-wisdom --format csv | cut -d, -f11 | tail -n 1 >&2
wisdom_threads_huge|2|^headroom run: .*/w100k.json: wisdom entry 0: "threads": 100000, expected an integer in \[0, 1024\]$|printf '{"format":"headroom-wisdom-1","entries":[{"class":"x","kernel":"flash","fixed_threads":0,"cpu_model":"x","isa":"x","cpus":2,"build_id":"x","block_q":0,"block_kv":0,"threads":100000}]}' > $TMP/w100k.json; $B run --kernel flash --seq 64 --reps 1 --min-time 0 --warmup 0 --wisdom $TMP/w100k.json
wisdom_threads_negative|2|^headroom run: .*/wneg.json: wisdom entry 0: "threads": -3, expected|printf '{"format":"headroom-wisdom-1","entries":[{"class":"x","kernel":"flash","fixed_threads":0,"cpu_model":"x","isa":"x","cpus":2,"build_id":"x","block_q":0,"block_kv":0,"threads":-3}]}' > $TMP/wneg.json; $B run --kernel flash --seq 64 --wisdom $TMP/wneg.json
wisdom_block_huge|2|^headroom sweep: .*/wbq.json: wisdom entry 0: "block_q": 1e\+30, expected|printf '{"format":"headroom-wisdom-1","entries":[{"class":"x","kernel":"flash","fixed_threads":0,"cpu_model":"x","isa":"x","cpus":2,"build_id":"x","block_q":1e30,"block_kv":0,"threads":1}]}' > $TMP/wbq.json; $B sweep configs/ci.ini --wisdom $TMP/wbq.json --out $TMP/wbq
config_threads_huge|2|^headroom sweep: .*/th.ini:3: threads: 5000 is outside \[0, 1024\]$|printf '[sweep]\nkernels = flash\nthreads = 5000\n' > $TMP/th.ini; $B sweep $TMP/th.ini --dry-run
roofline_oversubscribed|2|^headroom roofline: --threads: [0-9]+ threads on [0-9]+ allowed CPUs \([a-z ]+\) would measure shared cores, not ceilings|$B roofline --threads $(( $(getconf _NPROCESSORS_ONLN) + 1 )) --out $TMP/over.json
run_oversubscribed_context|0|^True$|$B run --kernel flash --seq 64 --reps 1 --min-time 0 --warmup 0 --no-wisdom --threads $(( $(getconf _NPROCESSORS_ONLN) + 1 )) --format json 2> /dev/null | python3 -c 'import json,sys; c=json.load(sys.stdin)["context"]; assert any("oversubscribed" in w for w in c["warnings"]); print(c["oversubscribed"])' >&2
# ---- a sweep never holds a row twice (sweep_store.c) -----------------------------------------
sweep_rerun_same_out|2|^headroom sweep: --out: .*/rr already holds a sweep's rows: --resume .*/rr finishes it, or give a new directory$|printf '[sweep]\nkernels = naive\nheads = 1\nd_head = 8\nseq = 16, 32\nreps = 1\nmin_time = 0\nwarmup = 0\nprobe = false\n' > $TMP/rr.ini; $B sweep $TMP/rr.ini --out $TMP/rr 2>/dev/null; $B sweep $TMP/rr.ini --out $TMP/rr
sweep_rerun_rows_kept|0|^2$|printf '[sweep]\nkernels = naive\nheads = 1\nd_head = 8\nseq = 16, 32\nreps = 1\nmin_time = 0\nwarmup = 0\nprobe = false\n' > $TMP/rk.ini; $B sweep $TMP/rk.ini --out $TMP/rk 2>/dev/null; $B sweep $TMP/rk.ini --out $TMP/rk 2>/dev/null; wc -l < $TMP/rk/rows.jsonl >&2
sweep_out_rows_device|2|^headroom sweep: --out: .*/rz/rows.jsonl is not a regular file$|mkdir -p $TMP/rz; ln -sf /dev/zero $TMP/rz/rows.jsonl; $B sweep configs/ci.ini --out $TMP/rz
sweep_resume_duplicate|0|^headroom sweep: note: .*rows.jsonl: 2 duplicate rows dropped|printf '[sweep]\nkernels = naive\nheads = 1\nd_head = 8\nseq = 16, 32\nreps = 1\nmin_time = 0\nwarmup = 0\nprobe = false\n' > $TMP/rd.ini; $B sweep $TMP/rd.ini --out $TMP/rd 2>/dev/null; cat $TMP/rd/rows.jsonl >> $TMP/rd/rows.jsonl.2; cat $TMP/rd/rows.jsonl.2 >> $TMP/rd/rows.jsonl; rm $TMP/rd/rows.jsonl.2; $B sweep --resume $TMP/rd 2>&1 | grep 'duplicate row' >&2
sweep_resume_duplicate_csv|0|^0$|printf '[sweep]\nkernels = naive\nheads = 1\nd_head = 8\nseq = 16, 32\nreps = 1\nmin_time = 0\nwarmup = 0\nprobe = false\n' > $TMP/rc.ini; $B sweep $TMP/rc.ini --out $TMP/rc 2>/dev/null; cat $TMP/rc/rows.jsonl $TMP/rc/rows.jsonl > $TMP/rc.rows; cp $TMP/rc.rows $TMP/rc/rows.jsonl; $B sweep --resume $TMP/rc 2>/dev/null; cut -d, -f1 $TMP/rc/results.csv | sort | uniq -d | wc -l >&2
sweep_layer_passes_names|0|^0$|printf '[sweep]\nmode = layer\nkernels = naive\nd_model = 16\nd_head = 8\nseq = 16\npasses = 3\nthreads = 1\nreps = 1\nmin_time = 0\nwarmup = 0\nprobe = false\n' > $TMP/lp.ini; $B sweep $TMP/lp.ini --out $TMP/lp 2>/dev/null; cut -d, -f1 $TMP/lp/results.csv | sort | uniq -d | wc -l >&2
# ---- plot on an ordinary sweep: a panel or chart without data is skipped with a note ------------
plot_noncausal_sweep|0|^[0-9]+ chart\(s\) in .*/pnc/p$|command -v ${HEADROOM_GNUPLOT:-gnuplot} > /dev/null || { echo "1 chart(s) in $TMP/pnc/p" >&2; exit 0; }; printf '[sweep]\nkernels = naive, flash\nheads = 1\nd_head = 8\nseq = 16, 32\nthreads = 1\nreps = 1\nmin_time = 0\nwarmup = 0\nprobe = false\n' > $TMP/pnc.ini; $B sweep $TMP/pnc.ini --out $TMP/pnc 2>/dev/null; $B plot $TMP/pnc --out $TMP/pnc/p > $TMP/pnc.out 2> $TMP/pnc.err; rc=$?; [ -s $TMP/pnc.err ] && { cat $TMP/pnc.err >&2; exit 3; }; tail -n 1 $TMP/pnc.out >&2; exit $rc
plot_causal_sweep|0|^[0-9]+ chart\(s\) in .*/pc/p$|command -v ${HEADROOM_GNUPLOT:-gnuplot} > /dev/null || { echo "1 chart(s) in $TMP/pc/p" >&2; exit 0; }; printf '[sweep]\nkernels = naive, flash\nheads = 1\nd_head = 8\nseq = 16, 32\ncausal = true\nthreads = 1\nreps = 1\nmin_time = 0\nwarmup = 0\nprobe = false\n' > $TMP/pc.ini; $B sweep $TMP/pc.ini --out $TMP/pc 2>/dev/null; $B plot $TMP/pc --out $TMP/pc/p > $TMP/pc.out 2> $TMP/pc.err; rc=$?; [ -s $TMP/pc.err ] && { cat $TMP/pc.err >&2; exit 3; }; tail -n 1 $TMP/pc.out >&2; exit $rc
plot_one_row_sweep|0|^[0-9]+ chart\(s\) in .*/p1/p$|command -v ${HEADROOM_GNUPLOT:-gnuplot} > /dev/null || { echo "1 chart(s) in $TMP/p1/p" >&2; exit 0; }; printf '[sweep]\nkernels = naive\nheads = 1\nd_head = 8\nseq = 16\nthreads = 1\nreps = 1\nmin_time = 0\nwarmup = 0\nprobe = false\n' > $TMP/p1.ini; $B sweep $TMP/p1.ini --out $TMP/p1 2>/dev/null; $B plot $TMP/p1 --out $TMP/p1/p > $TMP/p1.out 2> $TMP/p1.err; rc=$?; [ -s $TMP/p1.err ] && { cat $TMP/p1.err >&2; exit 3; }; tail -n 1 $TMP/p1.out >&2; exit $rc
# ---- lists and flags that another input overrides ------------------------------------------------
crossover_dmodel_empty_item|2|^headroom crossover: --d-model: expected a comma-separated list of at most 64 values, none empty$|$B crossover --d-model 64,,128 --out $TMP/cx
crossover_dmodel_trailing|2|^headroom crossover: --d-model: expected .* none empty$|$B crossover --d-model 64, --out $TMP/cx
crossover_dmodel_word|2|^headroom crossover: --d-model: 'x' is not an integer$|$B crossover --d-model 64,x --out $TMP/cx
crossover_dmodel_not_multiple|2|^headroom crossover: --d-model: 100 is not a multiple of d_head 64$|$B crossover --d-model 100 --out $TMP/cx
crossover_kernels_empty_item|2|^headroom crossover: --kernels: expected 1 to 32 comma-separated items, none empty$|$B crossover --kernels flash,,naive --out $TMP/cx
tune_seq_with_config|2|^headroom tune: --seq: not with --config|$B tune --kernel flash --seq 999 --config configs/ci.ini --dry-run
tune_causal_with_config|2|^headroom tune: --causal: not with --config|$B tune --kernel flash --config=configs/ci.ini --causal --dry-run
tune_heads_eq_with_config|2|^headroom tune: --heads: not with --config|$B tune --kernel flash --config configs/ci.ini --heads=4 --dry-run
EOF

# ---- shards and merge (sweep --shard K/N, headroom merge): bad K/N, shards that do not
# belong together, a shard missing, given twice or half-written -------------------------------
printf '[sweep]\nkernels = naive\nheads = 1\nd_head = 8\nseq = 16, 32, 48\nreps = 1\nmin_time = 0\nwarmup = 0\nprobe = false\n' > "$TMP/sh.ini"
printf '[sweep]\nkernels = naive\nheads = 1\nd_head = 8\nseq = 16, 64\nreps = 1\nmin_time = 0\nwarmup = 0\nprobe = false\n' > "$TMP/sh2.ini"
for k in 1 2; do "$B" sweep "$TMP/sh.ini" --shard $k/2 --out "$TMP/sh$k" 2> /dev/null; done
"$B" sweep "$TMP/sh2.ini" --shard 2/2 --out "$TMP/other2" 2> /dev/null
cp -r "$TMP/sh2" "$TMP/torn2" && printf '{"key": "naive/B1' >> "$TMP/torn2/rows.jsonl"
cp -r "$TMP/sh2" "$TMP/short2" && : > "$TMP/short2/rows.jsonl"
cp -r "$TMP/sh2" "$TMP/bin2" && sed -i 's/"build_id":[^,]*/"build_id": "0000000000000000"/' "$TMP/bin2/shard.json"
run_table <<'EOF'
shard_zero|2|^headroom sweep: --shard: '0/2': K must be in 1\.\.2 \(shards count from 1\)$|$B sweep configs/ci.ini --shard 0/2 --dry-run
shard_k_over_n|2|^headroom sweep: --shard: '3/2': K must be in 1\.\.2|$B sweep configs/ci.ini --shard 3/2 --dry-run
shard_zero_zero|2|^headroom sweep: --shard: '0/0': N must be at least 1$|$B sweep configs/ci.ini --shard 0/0 --dry-run
shard_n_zero|2|^headroom sweep: --shard: '1/0': N must be at least 1$|$B sweep configs/ci.ini --shard 1/0 --dry-run
shard_garbage|2|^headroom sweep: --shard: 'a/b' is not K/N \(shard K of N, 1 <= K <= N <= 4096\) or 'slurm'$|$B sweep configs/ci.ini --shard a/b --dry-run
shard_negative|2|^headroom sweep: --shard: '-1/2' is not K/N|$B sweep configs/ci.ini --shard -1/2 --dry-run
shard_no_slash|2|^headroom sweep: --shard: '2' is not K/N|$B sweep configs/ci.ini --shard 2 --dry-run
shard_huge|2|^headroom sweep: --shard: '1/99999999999' is not K/N|$B sweep configs/ci.ini --shard 1/99999999999 --dry-run
shard_slurm_no_array|2|^headroom sweep: --shard slurm: SLURM_ARRAY_TASK_ID is unset \(not a Slurm job array task|unset SLURM_ARRAY_TASK_ID; $B sweep configs/ci.ini --shard slurm --dry-run
shard_slurm_stepped|2|^headroom sweep: --shard slurm: the array 0-8 has 5 tasks, not 9: give a contiguous|SLURM_ARRAY_TASK_ID=2 SLURM_ARRAY_TASK_MIN=0 SLURM_ARRAY_TASK_MAX=8 SLURM_ARRAY_TASK_COUNT=5 $B sweep configs/ci.ini --shard slurm --dry-run
shard_slurm_ok|0|^[0-9]+ points: .*\(shard 3/4 of [0-9]+ points\)$|SLURM_ARRAY_TASK_ID=7 SLURM_ARRAY_TASK_MIN=5 SLURM_ARRAY_TASK_MAX=8 $B sweep configs/ci.ini --shard slurm --dry-run 2>&1 | tail -n 1 >&2
shard_resume_other|2|^headroom sweep: --shard: .*/sh1 holds shard 1/2, not 2/2$|$B sweep --resume $TMP/sh1 --shard 2/2
shard_resume_unsharded|2|^headroom sweep: --shard: .*/rr2 is not a shard's directory \(no shard.json\)|$B sweep $TMP/sh.ini --out $TMP/rr2 2>/dev/null; $B sweep --resume $TMP/rr2 --shard 1/2
merge_no_out|2|^headroom merge: --out: required|$B merge $TMP/sh1 $TMP/sh2
merge_nothing|2|^headroom merge: give the shard directories|$B merge --out $TMP/m0
merge_not_shard|2|^headroom merge: .*/rr3: not a shard's directory \(no shard.json|$B sweep $TMP/sh.ini --out $TMP/rr3 2>/dev/null; $B merge $TMP/sh1 $TMP/rr3 --out $TMP/m1
merge_not_dir|2|^headroom merge: .*/nosuch: not a directory$|$B merge $TMP/sh1 $TMP/nosuch --out $TMP/m2
merge_two_configs|2|^headroom merge: shard 1/2 \(.*/sh1\) and shard 2/2 \(.*/other2\) come from different configs: config_hash [0-9a-f]{16} and [0-9a-f]{16}$|$B merge $TMP/sh1 $TMP/other2 --out $TMP/m3
merge_two_binaries|2|^headroom merge: shard 1/2 \(.*/sh1\) and shard 2/2 \(.*/bin2\) come from different binaries: build_id [0-9a-f]{16} and 0000000000000000$|$B merge $TMP/sh1 $TMP/bin2 --out $TMP/m4
merge_missing|2|^headroom merge: shard 2 of 2 absent \(given: 1\)$|$B merge $TMP/sh1 --out $TMP/m5
merge_duplicate|2|^headroom merge: shard 1/2 given twice: .*/sh1 and .*/sh1$|$B merge $TMP/sh1 $TMP/sh1 $TMP/sh2 --out $TMP/m6
merge_torn|2|^headroom merge: .*/torn2/rows.jsonl:[0-9]+: incomplete last line|$B merge $TMP/sh1 $TMP/torn2 --out $TMP/m7
merge_half_written|2|^headroom merge: shard 2/2 \(.*/short2\) is incomplete: [0-9]+ of its [0-9]+ points neither measured nor skipped \(--resume|$B merge $TMP/sh1 $TMP/short2 --out $TMP/m8
merge_into_shard|2|^headroom merge: --out: .*/sh1 is one of the shards \(give a new directory\)$|$B merge $TMP/sh1 $TMP/sh2 --out $TMP/sh1
merge_into_results|2|^headroom merge: --out: .*/rr3 already holds a sweep's rows|$B merge $TMP/sh1 $TMP/sh2 --out $TMP/rr3
merge_kept_shards|0|^ok$|$B merge $TMP/sh1 $TMP/torn2 --out $TMP/m9 2>/dev/null; tail -c 20 $TMP/torn2/rows.jsonl | grep -q 'naive/B1' && echo ok >&2
EOF

# ---- every reader, every output, by class ----------------------------------------------------------
# Fixtures made here: concatenated and non-UTF-8 files, a fifo, sparse files over each cap.
cat "$S" "$S" > "$TMP/cat.json"
printf '[sweep]\ndescription = caf\351\nkernels = naive\n' > "$TMP/latin1.ini"
printf '[sweep]\nkernels = naive\ndescription = \300\257 overlong\n' > "$TMP/overlong.ini"
printf '[sweep]\nkernels = naive\n\n\ndescription = \355\240\200 surrogate\n' > "$TMP/surrogate.ini"
printf '[tiny]\nlayers = 1\nd_model = 64\nheads = 1\nkv_heads = 1\nd_head = 64 # \377\n' > "$TMP/models_latin1.ini"
python3 -c "import sys; t=open('$S','rb').read(); sys.stdout.buffer.write(t.replace(b'flash/N64', b'flash/N\xe964', 1))" > "$TMP/latin1.json" 2> /dev/null || printf '{"benchmarks": [{"name": "caf\351"}]}\n' > "$TMP/latin1.json"
printf '{"format":"headroom-wisdom-1","entries":[]}\n{"format":"headroom-wisdom-1","entries":[]}\n' > "$TMP/wcat.json"
printf '{"format":"headroom-wisdom-1","entries":[{"class":"caf\351"}]}\n' > "$TMP/wlatin1.json"
printf 'model,context,bytes\ngpt2,1024,caf\351\n' > "$TMP/kv_latin1.csv"
mkfifo "$TMP/fifo"
truncate -s 2G "$TMP/huge.json"
truncate -s 2M "$TMP/huge.ini"
truncate -s 100M "$TMP/huge_wisdom.json"
mkdir -p "$TMP/zres" "$TMP/zplot" "$TMP/zkv" "$TMP/zrows" "$TMP/outdir"
ln -sf /dev/zero "$TMP/zres/results.json"
ln -sf /dev/zero "$TMP/zplot/results.json"
ln -sf /dev/zero "$TMP/zkv/kvcache.csv"
cp "$HOSTILE/resume_bad/tiny.ini" "$TMP/zrows/" && ln -sf /dev/zero "$TMP/zrows/rows.jsonl"
F=$HOSTILE/../fixtures/compare
export F
# plot needs gnuplot before it reads anything; without one these rows pass vacuously.
GP='command -v ${HEADROOM_GNUPLOT:-gnuplot} > /dev/null || { echo "$EXPECT" >&2; exit 2; };'
run_table <<EOF2
# endless and huge inputs, devices and fifos, on every reader: exit 2 naming the file
kvcache_models_devzero|2|^headroom kvcache: /dev/zero: not a regular file \(a model presets file must be one\)$|\$B kvcache --models /dev/zero
kvcache_models_fifo|2|^headroom kvcache: .*/fifo: not a regular file|\$B kvcache --models \$TMP/fifo
kvcache_models_huge|2|^headroom kvcache: .*/huge.ini: [0-9]+ bytes, more than a model presets file can be|\$B kvcache --models \$TMP/huge.ini
decode_loop_models_alone|2|^headroom decode-loop: --models: needs --model NAME|\$B decode-loop --models /dev/zero
decode_loop_models_devzero|2|^headroom decode-loop: /dev/zero: not a regular file|\$B decode-loop --models /dev/zero --model tiny
decode_loop_ceilings_devzero|2|^headroom decode-loop: /dev/zero: not a regular file \(a ceilings file|\$B decode-loop --ceilings /dev/zero --prompt 8 --tokens 2
sweep_models_file_devzero|2|^headroom sweep: .*/mz.ini:3: models: /dev/zero: not a regular file|printf '[sweep]\nkernels = decode\nmodels = gpt2-small\nmodels_file = /dev/zero\n' > \$TMP/mz.ini; \$B sweep \$TMP/mz.ini --dry-run
sweep_models_file_alone|2|^headroom sweep: .*/mf.ini:3: models_file: needs models|printf '[sweep]\nkernels = naive\nmodels_file = /dev/zero\n' > \$TMP/mf.ini; \$B sweep \$TMP/mf.ini --dry-run
sweep_config_fifo|2|^headroom sweep: .*/fifo: not a regular file|\$B sweep \$TMP/fifo --dry-run
sweep_config_huge|2|^headroom sweep: .*/huge.ini: [0-9]+ bytes, more than a sweep config can be|\$B sweep \$TMP/huge.ini --dry-run
sweep_resume_rows_devzero|2|^headroom sweep: .*/zrows/rows.jsonl: not a regular file \(a rows file must be one\)$|\$B sweep --resume \$TMP/zrows
run_wisdom_devzero|2|^headroom run: /dev/zero: not a regular file \(a wisdom file must be one\)$|\$B run --kernel flash --seq 64 --wisdom /dev/zero
run_wisdom_fifo|2|^headroom run: .*/fifo: not a regular file|\$B run --kernel flash --seq 64 --wisdom \$TMP/fifo
run_wisdom_huge|2|^headroom run: .*/huge_wisdom.json: [0-9]+ bytes, more than a wisdom file can be|\$B run --kernel flash --seq 64 --wisdom \$TMP/huge_wisdom.json
sweep_wisdom_devzero|2|^headroom sweep: /dev/zero: not a regular file|\$B sweep configs/ci.ini --wisdom /dev/zero --out \$TMP/swz
layer_wisdom_devzero|2|^headroom layer: /dev/zero: not a regular file|\$B layer --wisdom /dev/zero --d-model 64 --seq 16
compare_devzero|2|^headroom compare: /dev/zero: not a regular file|\$B compare /dev/zero \$S
compare_fifo|2|^headroom compare: .*/fifo: not a regular file|\$B compare \$S \$TMP/fifo
compare_huge|2|^headroom compare: .*/huge.json: [0-9]+ bytes, more than a results file can be|\$B compare \$TMP/huge.json \$S
report_devzero|2|^headroom report: /dev/zero: not a regular file|\$B report /dev/zero --no-charts --out \$TMP/rep
report_results_link_devzero|2|^headroom report: .*/zres/results.json: not a regular file|\$B report \$TMP/zres --no-charts --out \$TMP/rep
plot_kvcache_devzero|2|^headroom plot: /dev/zero: not a regular file \(a CSV file must be one\)$|EXPECT='headroom plot: /dev/zero: not a regular file (a CSV file must be one)'; $GP \$B plot \$TMP/adir --kvcache /dev/zero --out \$TMP/pz
plot_crossover_devzero|2|^headroom plot: /dev/zero: not a regular file|EXPECT='headroom plot: /dev/zero: not a regular file'; $GP \$B plot \$TMP/adir --crossover /dev/zero --out \$TMP/pz
plot_decode_urandom|2|^headroom plot: /dev/urandom: not a regular file|EXPECT='headroom plot: /dev/urandom: not a regular file'; $GP \$B plot \$TMP/adir --decode /dev/urandom --out \$TMP/pz
plot_kvcache_fifo|2|^headroom plot: .*/fifo: not a regular file|EXPECT='headroom plot: /fifo: not a regular file'; $GP \$B plot \$TMP/adir --kvcache \$TMP/fifo --out \$TMP/pz
plot_ceilings_devzero|2|^headroom plot: /dev/zero: not a regular file|EXPECT='headroom plot: /dev/zero: not a regular file'; $GP \$B plot \$TMP/adir --ceilings /dev/zero --out \$TMP/pz
plot_results_link_devzero|2|^headroom plot: .*/zplot/results.json: not a regular file|EXPECT='headroom plot: /zplot/results.json: not a regular file'; $GP \$B plot \$TMP/zplot --out \$TMP/pz
plot_dir_kvcache_link_devzero|2|^headroom plot: .*/zkv/kvcache.csv: not a regular file|EXPECT='headroom plot: /zkv/kvcache.csv: not a regular file'; $GP \$B plot \$TMP/zkv --out \$TMP/pz
# invalid UTF-8 refused at input, as file:line
sweep_config_latin1|2|^headroom sweep: .*/latin1.ini:2: invalid UTF-8 in a sweep config \(byte 0xe9|\$B sweep \$TMP/latin1.ini --dry-run
sweep_config_overlong|2|^headroom sweep: .*/overlong.ini:3: invalid UTF-8 in a sweep config \(byte 0xc0|\$B sweep \$TMP/overlong.ini --dry-run
sweep_config_surrogate|2|^headroom sweep: .*/surrogate.ini:5: invalid UTF-8|\$B sweep \$TMP/surrogate.ini --dry-run
tune_config_latin1|2|^headroom tune: .*/latin1.ini:2: invalid UTF-8|\$B tune --kernel flash --config \$TMP/latin1.ini --dry-run
kvcache_models_latin1|2|^headroom kvcache: .*/models_latin1.ini:6: invalid UTF-8 in a model presets file|\$B kvcache --models \$TMP/models_latin1.ini
compare_results_latin1|2|^headroom compare: .*/latin1.json:[0-9]+: invalid UTF-8 in a results file|\$B compare \$S \$TMP/latin1.json
report_results_latin1|2|^headroom report: .*/latin1.json:[0-9]+: invalid UTF-8|\$B report \$TMP/latin1.json --no-charts --out \$TMP/rep
wisdom_latin1|2|^headroom run: .*/wlatin1.json:1: invalid UTF-8 in a wisdom file|\$B run --kernel flash --seq 64 --wisdom \$TMP/wlatin1.json
plot_csv_latin1|2|^headroom plot: .*/kv_latin1.csv:2: invalid UTF-8 in a CSV file|EXPECT='headroom plot: /kv_latin1.csv:2: invalid UTF-8 in a CSV file'; $GP \$B plot \$TMP/adir --kvcache \$TMP/kv_latin1.csv --out \$TMP/pz
# one JSON document per file: trailing data refused with file:line
compare_concatenated|2|^headroom compare: .*/cat.json:[0-9]+: data after the end of the JSON document|\$B compare \$TMP/cat.json \$S
compare_concatenated_new|2|^headroom compare: .*/cat.json:[0-9]+: data after the end|\$B compare \$S \$TMP/cat.json
compare_trailing_garbage|2|^headroom compare: .*/tg.json:[0-9]+: data after the end|{ cat \$S; echo garbage; } > \$TMP/tg.json; \$B compare \$S \$TMP/tg.json
compare_trailing_space_ok|0|^parsed$|{ cat \$F/base.json; printf '\n \t\n'; } > \$TMP/ts.json; \$B compare \$F/base.json \$TMP/ts.json > /dev/null 2>&1; rc=\$?; echo parsed >&2; exit \$rc
report_concatenated|2|^headroom report: .*/cat.json:[0-9]+: data after the end|\$B report \$TMP/cat.json --no-charts --out \$TMP/rep
wisdom_concatenated|2|^headroom run: .*/wcat.json: corrupt wisdom file \(line 2: data after the end of the JSON document|\$B run --kernel flash --seq 64 --wisdom \$TMP/wcat.json
ceilings_concatenated|2|^headroom decode-loop: .*/ccat.json:[0-9]+: data after the end|printf '{"headroom_ceilings": 1} {}' > \$TMP/ccat.json; \$B decode-loop --ceilings \$TMP/ccat.json --prompt 8 --tokens 2
rows_two_documents_on_a_line|2|^headroom sweep: .*/r2/rows.jsonl:1: not a headroom row|mkdir -p \$TMP/r2 && cp \$HOSTILE/resume_bad/tiny.ini \$TMP/r2/ && head -n 1 \$HOSTILE/resume_bad/rows.jsonl | tr -d '\n' > \$TMP/r2/rows.jsonl && echo ' {}' >> \$TMP/r2/rows.jsonl && \$B sweep --resume \$TMP/r2
# names holding a newline, '|' or a control character keep a markdown table one row per benchmark
compare_markdown_newline_name|0|^rows 8$|python3 -c "import json,sys; d=json.load(open('\$F/base.json')); [b.update(name=b['name']+'\n|x\x01', run_name=b.get('run_name',b['name'])+'\n|x\x01') for b in d['benchmarks']]; json.dump(d,open('\$TMP/nl.json','w'))" && \$B compare \$TMP/nl.json \$TMP/nl.json --format markdown > \$TMP/nl.md; rc=\$?; echo "rows \$(grep -c '^|' \$TMP/nl.md)" >&2; exit \$rc
# every output checked: stdout on /dev/full is exit 2 with exactly this one line
full_list|2|^headroom: stdout: write error \(No space left on device\)$|\$B list > /dev/full
full_list_json|2|^headroom: stdout: write error \(No space left on device\)$|\$B list --format json > /dev/full
full_help|2|^headroom: stdout: write error \(No space left on device\)$|\$B --help > /dev/full
full_cmd_help|2|^headroom: stdout: write error \(No space left on device\)$|\$B compare --help > /dev/full
full_kvcache|2|^headroom: stdout: write error \(No space left on device\)$|\$B kvcache > /dev/full
full_kvcache_json|2|^headroom: stdout: write error \(No space left on device\)$|\$B kvcache --format json > /dev/full
full_check|2|^headroom: stdout: write error \(No space left on device\)$|\$B check --quick --kernel naive > /dev/full
full_decode_loop|2|^headroom: stdout: write error \(No space left on device\)$|\$B decode-loop --prompt 8 --tokens 2 --heads 2 --kv-heads 2 --d-head 16 --layers 1 > /dev/full
full_sweep_dry_run|2|^headroom: stdout: write error \(No space left on device\)$|\$B sweep configs/ci.ini --dry-run > /dev/full
full_run_json|2|^headroom: stdout: write error \(No space left on device\)$|\$B run --kernel naive --seq 16 --reps 1 --min-time 0 --warmup 0 --no-wisdom --no-probe --format json > /dev/full
full_compare_json|2|^headroom: stdout: write error \(No space left on device\)$|\$B compare \$F/base.json \$F/same.json --format json > /dev/full
full_compare_regression_json|2|^headroom: stdout: write error \(No space left on device\)$|\$B compare \$F/base.json \$F/slow.json --format json > /dev/full
full_compare_markdown|2|^headroom: stdout: write error \(No space left on device\)$|\$B compare \$F/base.json \$F/slow.json --format markdown > /dev/full
full_report|2|^headroom: stdout: write error \(No space left on device\)$|\$B report \$HOSTILE/../fixtures/report/intel-xeon-8480-16c --no-charts --out \$TMP/repf 2>&1 > /dev/full | grep -v ': wrote ' >&2; exit \${PIPESTATUS[0]}
full_layer|2|^headroom: stdout: write error \(No space left on device\)$|\$B layer --d-model 32 --d-head 16 --seq 16 --threads 1 --reps 1 --min-time 0 > /dev/full
full_tune_dry_run|2|^headroom: stdout: write error \(No space left on device\)$|\$B tune --kernel flash --seq 16 --heads 1 --d-head 16 --budget 0.1 --threads 1 --dry-run 2>&1 > /dev/full | grep -v 'budget of' >&2; exit \${PIPESTATUS[0]}
full_ab_json|2|^headroom: stdout: write error \(No space left on device\)$|printf '[sweep]\nkernels = naive\nheads = 1\nd_head = 8\nseq = 16\nthreads = 1\nmin_time = 0.001\nwarmup = 0.001\n' > \$TMP/ab.ini; \$B ab \$B \$B \$TMP/ab.ini --reps 4 --format json 2>&1 > /dev/full | tail -n 1 >&2; exit \${PIPESTATUS[0]}
ab_config_devzero|2|^headroom ab: .*\(base\): /dev/zero: not a regular file \(a sweep config must be one\)$|\$B ab \$B \$B /dev/zero --reps 4
full_closed_stdout|2|^headroom: stdout: write error \(Bad file descriptor\)$|\$B list >&-
full_failed_keeps_status|2|^headroom run: --seq: missing value$|\$B run --kernel naive --seq > /dev/full
# atomic writes never replace what is not a regular file
roofline_out_devnull|2|^headroom roofline: /dev/null: exists and is not a regular file \(a device or socket\); not replaced$|\$B roofline --quick --out /dev/null
roofline_out_directory|2|^headroom roofline: .*/outdir: exists and is not a regular file \(a directory\)|\$B roofline --quick --out \$TMP/outdir
roofline_out_fifo|2|^headroom roofline: .*/fifo: exists and is not a regular file \(a fifo\)|\$B roofline --quick --out \$TMP/fifo
sweep_out_devnull|2|^headroom sweep: /dev/null: exists and is not a directory$|\$B sweep configs/ci.ini --out /dev/null
report_out_devnull|2|^headroom report: /dev/null: exists and is not a directory$|\$B report \$HOSTILE/../fixtures/report/intel-xeon-8480-16c --no-charts --out /dev/null
crossover_out_file|2|^headroom crossover: .*/afile: exists and is not a directory$|\$B crossover --seq-max 64 --d-model 64 --out \$TMP/afile
run_save_devnull|2|^headroom run: /dev/null: exists and is not a directory$|\$B run --kernel naive --seq 16 --reps 1 --min-time 0 --warmup 0 --save /dev/null
run_save_npy_devnull|2|^headroom run: --save: .*/sv/q.npy exists and is not a regular file|mkdir -p \$TMP/sv && ln -sf /dev/null \$TMP/sv/q.npy && \$B run --kernel naive --seq 16 --reps 1 --min-time 0 --warmup 0 --save \$TMP/sv
sweep_results_json_devnull|2|^headroom sweep: .*/sj/results.json: exists and is not a regular file|printf '[sweep]\nkernels = naive\nheads = 1\nd_head = 8\nseq = 16\nthreads = 1\nreps = 1\nmin_time = 0\nwarmup = 0\nprobe = false\n' > \$TMP/sj.ini; mkdir -p \$TMP/sj; ln -sf /dev/null \$TMP/sj/results.json; \$B sweep \$TMP/sj.ini --out \$TMP/sj 2>&1 >/dev/null | tail -n 1 >&2; exit \${PIPESTATUS[0]}
EOF2

# ---- interruption: SIGTERM (what CI runners send on a timeout) mid-sweep keeps every
# finished row in a valid results.json; sh_sweep.sh covers SIGINT.
sout=$TMP/sigterm
interrupt_sweep TERM "$sout" sigterm
if command -v python3 > /dev/null; then
    expect sigterm_rows 0 'rows [1-9]' -- python3 -c "
import json
d = json.load(open('$sout/results.json'))
assert d['sweep']['interrupted'] is True, d['sweep']
lines = [json.loads(l) for l in open('$sout/rows.jsonl')]
n = len(lines)
assert n == d['sweep']['rows'] >= 1, (n, d['sweep']['rows'])
# every finished row (one per point and pass) is in results.json and results.csv
names = {b['name'] for b in d['benchmarks'] if b['run_type'] == 'iteration'}
assert names == {l['key'].rsplit('/', 3)[0] for l in lines}, names
its = sum(1 for b in d['benchmarks'] if b['run_type'] == 'iteration')
assert its == sum(len(l['result']['rep_time']) for l in lines), its
csv = open('$sout/results.csv').read().splitlines()
assert len(csv) == n + 1, (len(csv), n)
print('rows', n)"
else
    skip sigterm_rows "no python3"
fi

finish
