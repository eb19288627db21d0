# sh_peer_ggml_fa.sh — the ggml_fa peer plugin (peers/ggml_fa/, built by `make peers-setup
# peers` into build/plugins/ggml_fa.so): it loads, lists with its origin, passes the oracle
# battery (f32 K/V: every shape, layout, causal alignment and 1-3 threads; f16 K/V on a few
# shapes), takes its threads from headroom, shares headroom's OpenMP runtime, refuses the
# K/V types it cannot compute exactly, and its result rows name the plugin. Without the
# plugin every case is a skip, never an ok.
SUITE=peer_ggml_fa
. "$(dirname "$0")/lib.sh"
P=${HR_GGML_FA:-$ROOT/build/plugins/ggml_fa.so}
RUN=(--reps 2 --min-time 0.001 --warmup 0 --no-probe)
CASES="loads list_origin list_types check_battery check_f16 run_decode_split run_causal_short_kv
run_bnhd_direct run_gqa_mqa threads_1 threads_2 one_openmp refuses_bf16 refuses_q8_0 row_plugin
row_library row_version row_path context_plugins sweep_runs decode_loop layer"
if [ ! -f "$P" ]; then
    for c in $CASES; do skip "$c" "no $P (make peers-setup peers)"; done
    finish
    exit $?
fi

expect loads 0 '' -- $B list --plugin "$P"
expect list_origin 0 "plugin $P \(ggml [0-9]+\.[0-9]+\.[0-9]+, ABI 1\.0\)" -- $B list --plugin "$P"
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
finish
