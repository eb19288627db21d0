# sh_peer_onednn_sdpa.sh — the oneDNN Graph SDPA peer plugin (peers/onednn_sdpa/) end to end:
# it loads, `list` names it and its library, the whole oracle battery passes at 1 and 2
# threads, each path (fused MHA partition; matmul/softmax/matmul for GQA/MQA) runs checked in
# both layouts and with causal Nq < Nkv and Nq > Nkv, a run row names the plugin, the library
# shares headroom's libgomp, the standalone driver runs the same partitions, a sliding
# window and ALiBi's bias (on the explicit mask) check on each path, a soft cap is refused with
# the reason, and a ragged decode batch runs on it (--plugin). One skip
# line when the plugin is not built (make peers-setup peers), never a pass.
SUITE=peer_onednn_sdpa
. "$(dirname "$0")/lib.sh"
P=${HR_ONEDNN_PLUGIN:-$ROOT/build/plugins/onednn_sdpa.so}
DRV=$ROOT/build/peers/onednn_sdpa/sdpa_bench
if [ ! -f "$P" ]; then
    skip all "$P not built (make peers-setup peers)"
    exit 0
fi
RUN=(--plugin "$P" --kernel onednn_sdpa --reps 2 --min-time 0.001 --warmup 0 --no-probe --check)
FUSED='graph fused f32_MHA partition'
SPLIT='graph partitions \(matmul, softmax, matmul\)'

expect list_shows 0 'onednn_sdpa +causal,threaded,window,alibi +scores +oneDNN Graph API SDPA' -- $B list --plugin "$P"
expect list_origin 0 "plugin $P \(onednn 3\.[0-9]+\.[0-9]+, ABI 1\.1\)" -- $B list --plugin "$P"
expect check_battery 0 'onednn_sdpa +f32 +T[0-9,]+ +[0-9]+ pass +0 warn +0 fail' -- $B check --quick --kernel onednn_sdpa --plugin "$P"

# Each path, checked against the oracle, in both layouts (the fused partition writes a BNHD
# O in place and stages a BHND one), causal with Nq < Nkv and with rows that see no key.
for lay in bhnd bnhd; do
    expect "mha_$lay" 0 "check: pass .*$FUSED" -- $B run "${RUN[@]}" --layout $lay --heads 4 --seq 37 --d-head 24
    expect "mha_causal_$lay" 0 "check: pass .*$FUSED" -- $B run "${RUN[@]}" --layout $lay --heads 2 --seq 20 --seq-kv 45 --causal
    expect "mha_causal_empty_rows_$lay" 0 "check: pass .*$FUSED" -- $B run "${RUN[@]}" --layout $lay --heads 2 --seq 45 --seq-kv 20 --causal
    expect "gqa_$lay" 0 "check: pass .*$SPLIT" -- $B run "${RUN[@]}" --layout $lay --heads 6 --kv-heads 2 --seq 33 --d-head 40
    expect "gqa_causal_$lay" 0 "check: pass .*$SPLIT" -- $B run "${RUN[@]}" --layout $lay --heads 4 --kv-heads 2 --seq 50 --seq-kv 17 --causal
    expect "mqa_decode_$lay" 0 "check: pass .*$SPLIT" -- $B run "${RUN[@]}" --layout $lay --heads 4 --kv-heads 1 --seq 1 --seq-kv 300 --causal
done
for t in 1 2; do
    expect "threads_$t" 0 "check: pass" -- $B run "${RUN[@]}" --threads $t --batch 2 --heads 4 --kv-heads 2 --seq 64 --causal
done

expect tune_threads 0 'onednn_sdpa B1 H2/2 N64x64 d64 +T[0-9]+ +T[0-9]+' -- $B tune --plugin "$P" --kernel onednn_sdpa --heads 2 --seq 64 --budget 2 --min-time 0.002 --rounds 3 --dry-run

# A run row names the plugin, its library and version, and the path that ran.
$B run --plugin "$P" --kernel onednn_sdpa --heads 2 --seq 32 --reps 2 --min-time 0.001 --warmup 0 --no-probe \
    --format json > "$TMP/run.json" 2>/dev/null
expect row_plugin 0 "\"plugin\":[[:space:]]*\"$P\"" -- cat "$TMP/run.json"
expect row_library 0 '"plugin_library":[[:space:]]*"onednn"' -- cat "$TMP/run.json"
expect row_version 0 '"plugin_version":[[:space:]]*"3\.[0-9]+\.[0-9]+"' -- cat "$TMP/run.json"
expect row_path 0 "\"path\":[[:space:]]*\"onednn 3\.[0-9.]+ $FUSED\"" -- cat "$TMP/run.json"

# One OpenMP runtime: the plugin and oneDNN resolve libgomp to the file headroom uses.
gomp() { ldd "$1" 2>/dev/null | awk '/libgomp/ {print $3}'; }
HG=$(gomp "$B")
if [ -n "$HG" ]; then
    expect same_libgomp 0 "^$HG$" -- echo "$(gomp "$P")"
    expect no_other_omp 1 '' -- sh -c "ldd '$P' | grep -E 'libiomp|libomp\\.so|libtbb'"
else
    skip same_libgomp "ldd shows no libgomp in $B"
fi

# The standalone driver (fairness.sh's reference) runs the same partitions.
if [ -x "$DRV" ]; then
    expect driver_runs 0 "median_ms [0-9.]+ .*path onednn 3\.[0-9.]+ $SPLIT" -- "$DRV" --heads 4 --kv-heads 2 --seq 64 --causal --reps 2 --min-time 0.001 --warmup 0 --threads 1
    expect driver_bad_flag 2 'sdpa_bench: bad value for --heads' -- "$DRV" --heads 0
else
    skip driver "$DRV not built"
fi

# The window on the explicit mask: fused (MHA), folded (MQA, BHND) and broadcast (GQA,
# BNHD) graphs, Nq < and > Nkv, a decode row (which needs the mask under a window).
expect var_window_fused 0 'check: pass .*fused' -- $B run "${RUN[@]}" --seq 77 --seq-kv 93 --causal --window 13
expect var_window_mqa_short_kv 0 'check: pass' -- $B run "${RUN[@]}" --seq 70 --seq-kv 20 --causal --window 7 --heads 4 --kv-heads 1
expect var_window_gqa_bnhd 0 'check: pass .*partitions' -- $B run "${RUN[@]}" --seq 50 --causal --window 9 --heads 6 --kv-heads 3 --layout bnhd --batch 2
expect var_window_decode 0 'check: pass' -- $B run "${RUN[@]}" --seq 1 --seq-kv 700 --causal --window 300 --heads 8 --kv-heads 2 --threads 2
# ALiBi as explicit bias planes on the same mask: fused, folded, broadcast, a decode row, full
# attention, beside a window; a bias past 1 GiB is refused with the reason.
expect var_alibi_fused 0 'check: pass .*fused' -- $B run "${RUN[@]}" --seq 77 --seq-kv 93 --causal --alibi 8
expect var_alibi_mqa_full 0 'check: pass' -- $B run "${RUN[@]}" --seq 40 --seq-kv 60 --alibi 4 --heads 4 --kv-heads 1
expect var_alibi_gqa_bnhd 0 'check: pass .*partitions' -- $B run "${RUN[@]}" --seq 50 --causal --window 9 --alibi 8 --heads 6 --kv-heads 3 --layout bnhd --batch 2
expect var_alibi_decode 0 'check: pass' -- $B run "${RUN[@]}" --seq 1 --seq-kv 700 --causal --alibi 8 --heads 12 --kv-heads 4 --threads 2
expect refuses_alibi_far 2 "ALiBi's explicit bias .* is over 1 GiB" -- $B run --plugin "$P" --kernel onednn_sdpa --heads 32 --seq 4096 --causal --alibi 8 --reps 1 --min-time 0 --warmup 0 --no-probe
expect refuses_softcap 2 "cannot run this shape: no soft-capped scores" -- $B run --plugin "$P" --kernel onednn_sdpa --seq 16 --softcap 30 --reps 1 --min-time 0 --warmup 0 --no-probe
# A ragged batch: one compiled plan per sequence's shape, one execution per sequence.
expect decode_batch 0 'check: all 3 sequences within tolerance' -- $B decode-batch --plugin "$P" --kernel onednn_sdpa --lens 37,300,700 --rows 1,3,1 --heads 8 --kv-heads 2 --d 64 --threads 2 --reps 2 --check
finish
