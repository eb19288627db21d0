# sh_peer_ggml_fa.sh — the ggml_fa peer plugin (peers/ggml_fa/, built by `make peers-setup
# peers` into build/plugins/ggml_fa.so): it loads, lists with its origin, passes the oracle
# battery (f32 K/V: every shape, layout, causal alignment and 1-3 threads; f16 K/V on a few
# shapes), takes its threads from headroom, shares headroom's OpenMP runtime, refuses the
# K/V types it cannot compute exactly, and its result rows name the plugin. The variants
# (ABI 1.1: window, softcap, ALiBi; each alone and together) pass the oracle on odd
# shapes on each of ggml's paths, a ragged decode batch runs on it (--plugin), and ALiBi
# past the f16 mask's exact distances is refused with the reason. Without the plugin
# every case is a skip, never an ok.
SUITE=peer_ggml_fa
. "$(dirname "$0")/lib.sh"
P=${HR_GGML_FA:-$ROOT/build/plugins/ggml_fa.so}
RUN=(--reps 2 --min-time 0.001 --warmup 0 --no-probe)
CASES="loads list_origin list_types check_battery check_f16 run_decode_split run_causal_short_kv
run_bnhd_direct run_gqa_mqa threads_1 threads_2 one_openmp refuses_bf16 refuses_q8_0 row_plugin
row_library row_version row_path context_plugins sweep_runs decode_loop layer list_caps
var_window var_softcap var_alibi var_alibi_causal var_window_alibi var_all_short_kv var_all_one_chunk
var_all_split var_all_bnhd var_all_f16 refuses_alibi_far decode_batch"
if [ ! -f "$P" ]; then
    for c in $CASES; do skip "$c" "no $P (make peers-setup peers)"; done
    finish
    exit $?
fi

expect loads 0 '' -- $B list --plugin "$P"
expect list_origin 0 "plugin $P \(ggml [0-9]+\.[0-9]+\.[0-9]+, ABI 1\.1\)" -- $B list --plugin "$P"
expect list_types 0 'types f32, kv f32,f16;' -- $B list --plugin "$P"
expect check_battery 0 'ggml_fa +f32 +T1,2,3 +[0-9]+ pass +[0-9]+ warn +0 fail' -- $B check --quick --kernel ggml_fa --plugin "$P" --kv-dtype f32
# f16 K/V on the paths ggml takes for it: tiled (Nq >= 64) and one row at a time.
expect check_f16 0 'check: pass' -- $B run --plugin "$P" --kernel ggml_fa --kv-dtype f16 --seq 80 --seq-kv 100 --causal --heads 4 --kv-heads 2 "${RUN[@]}" --check
# One query row against >= 512 keys: ggml's KV-split path (partials merged by LSE).
expect run_decode_split 0 'check: pass .*split-kv' -- $B run --plugin "$P" --kernel ggml_fa --seq 1 --seq-kv 700 --heads 8 --kv-heads 2 --causal --threads 2 "${RUN[@]}" --check
# Nq > Nkv causal: the first Nq - Nkv rows see no key and must come out as zeros.
expect run_causal_short_kv 0 'check: pass' -- $B run --plugin "$P" --kernel ggml_fa --seq 70 --seq-kv 20 --causal --threads 2 "${RUN[@]}" --check
# BNHD: ggml writes O in place (its own result layout); batch 2 covers sb.
expect run_bnhd_direct 0 'check: pass' -- $B run --plugin "$P" --kernel ggml_fa --layout bnhd --batch 2 --seq 65 --heads 4 --kv-heads 1 --causal "${RUN[@]}" --check
expect run_gqa_mqa 0 'check: pass' -- $B run --plugin "$P" --kernel ggml_fa --seq 33 --heads 6 --kv-heads 3 --d-head 80 "${RUN[@]}" --check
expect threads_1 0 'ggml_fa .* 1 +[0-9.]+ .*pass' -- $B run --plugin "$P" --kernel ggml_fa --seq 128 --threads 1 "${RUN[@]}" --check
expect threads_2 0 'ggml_fa .* 2 +[0-9.]+ .*pass' -- $B run --plugin "$P" --kernel ggml_fa --seq 128 --threads 2 "${RUN[@]}" --check
# ggml's OpenMP is headroom's: one libgomp in the process, not a second runtime.
gomp() { ldd "$1" 2>/dev/null | awk '/libgomp/ {print $3}'; }
if [ -n "$(gomp "$P")" ] && [ "$(gomp "$P")" = "$(gomp "$(command -v "$B" || echo "$B")")" ]; then
    ok one_openmp
else
    fail one_openmp "plugin libgomp '$(gomp "$P")' differs from headroom's '$(gomp "$B")'"
fi
expect refuses_bf16 2 'no bf16 K/V cache' -- $B run --plugin "$P" --kernel ggml_fa --kv-dtype bf16 --seq 16 "${RUN[@]}"
expect refuses_q8_0 2 'no q8_0 K/V cache' -- $B run --plugin "$P" --kernel ggml_fa --kv-dtype q8_0 --seq 16 "${RUN[@]}"

$B run --plugin "$P" --kernel ggml_fa --seq 64 --heads 4 --causal "${RUN[@]}" --format json > "$TMP/run.json" 2>/dev/null
expect row_plugin 0 "\"plugin\":[[:space:]]*\"$P\"" -- cat "$TMP/run.json"
expect row_library 0 '"plugin_library":[[:space:]]*"ggml"' -- cat "$TMP/run.json"
expect row_version 0 '"plugin_version":[[:space:]]*"[0-9]+\.[0-9]+\.[0-9]+"' -- cat "$TMP/run.json"
expect row_path 0 '"path":[[:space:]]*"ggml cpu flash_attn_ext tiled"' -- cat "$TMP/run.json"
expect context_plugins 0 '"library":[[:space:]]*"ggml"' -- cat "$TMP/run.json"
cat > "$TMP/s.ini" <<'INI'
[sweep]
kernels = ggml_fa
heads = 2
seq = 16, 65
causal = false, true
reps = 2
min_time = 0.001
warmup = 0
probe = false
check = true
INI
expect sweep_runs 0 '' -- $B sweep "$TMP/s.ini" --plugin "$P" --out "$TMP/sw"
# A growing cache (the workspace sized once, at the full cache) and the full layer.
expect decode_loop 0 'check: pass' -- $B decode-loop --plugin "$P" --kernel ggml_fa --layers 1 --heads 4 --kv-heads 2 --d-head 64 --prompt 600 --tokens 3 --check
expect layer 0 'check: pass' -- $B layer --plugin "$P" --kernel ggml_fa --seq 64 --d-model 256 --check --reps 1 --min-time 0 --warmup 0

# The variants, checked against the oracle: odd N, d and head counts (a non-power-of-two
# Hq for ALiBi's second slope series), GQA, Nq < and > Nkv, ggml's tiled (Nq >= 64),
# one-row and KV-split paths.
expect list_caps 0 'ggml_fa +causal,gqa,decode,threaded,window,softcap,alibi ' -- $B list --plugin "$P"
V=(--plugin "$P" --kernel ggml_fa "${RUN[@]}" --check)
expect var_window 0 'check: pass .*tiled' -- $B run "${V[@]}" --seq 77 --seq-kv 93 --causal --window 13 --heads 4 --kv-heads 2
expect var_softcap 0 'check: pass' -- $B run "${V[@]}" --seq 77 --seq-kv 93 --softcap 5 --d-head 40
expect var_alibi 0 'check: pass' -- $B run "${V[@]}" --seq 77 --seq-kv 93 --alibi 8 --heads 6 --kv-heads 2
expect var_alibi_causal 0 'check: pass' -- $B run "${V[@]}" --seq 77 --seq-kv 93 --causal --alibi 8 --heads 12 --kv-heads 3 --threads 2
expect var_window_alibi 0 'check: pass' -- $B run "${V[@]}" --seq 67 --causal --window 20 --alibi 4 --heads 5
expect var_all_short_kv 0 'check: pass' -- $B run "${V[@]}" --seq 70 --seq-kv 20 --causal --window 7 --softcap 20 --alibi 8 --heads 5
expect var_all_one_chunk 0 'check: pass .*one_chunk' -- $B run "${V[@]}" --seq 19 --seq-kv 41 --causal --window 5 --softcap 7 --alibi 8 --heads 3
expect var_all_split 0 'check: pass .*split-kv' -- $B run "${V[@]}" --seq 1 --seq-kv 700 --causal --window 300 --softcap 30 --alibi 8 --heads 8 --kv-heads 2 --threads 2
expect var_all_bnhd 0 'check: pass' -- $B run "${V[@]}" --seq 130 --causal --window 33 --softcap 10 --alibi 4 --heads 3 --kv-heads 1 --d-head 80 --layout bnhd --batch 2
expect var_all_f16 0 'check: pass' -- $B run "${V[@]}" --seq 65 --kv-dtype f16 --causal --window 9 --softcap 30 --alibi 8 --heads 4 --kv-heads 2
expect refuses_alibi_far 2 "cannot run this shape: ALiBi over key distances past 2048 \\(ggml's f16 KQ mask rounds them\\)" -- $B run --plugin "$P" --kernel ggml_fa --seq 1 --seq-kv 3000 --causal --alibi 8 "${RUN[@]}"
# A ragged batch as a llama.cpp user runs it: one ggml call per sequence.
expect decode_batch 0 'check: all 3 sequences within tolerance' -- $B decode-batch --plugin "$P" --kernel ggml_fa --lens 37,300,700 --rows 1,3,1 --heads 8 --kv-heads 2 --d 64 --threads 2 --reps 2 --check
finish
