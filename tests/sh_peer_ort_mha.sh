# sh_peer_ort_mha.sh — the ort_mha peer (peers/ort_mha: ONNX Runtime's MultiHeadAttention
# and GroupQueryAttention through its Python API, from an interpreter the plugin embeds)
# end to end, when `make peers-setup peers` built it: `list` shows it with its refusals,
# the oracle battery passes for f32 and f16, each mapping (BNHD and BHND in place, the
# transposed GQA views, MultiHeadAttention over KV groups, the bottom-right mask) checks
# on its own, a plugin without its Python half fails in one line, and a run's results
# name the plugin, onnxruntime's version and the operator. The variants pass the oracle
# alone and together in each mapping: with Nq == Nkv a soft cap and a window on
# GroupQueryAttention's softcap and local_window_size (ALiBi beside a cap its bias), else
# window and ALiBi on MultiHeadAttention's attention_bias; a soft cap with Nq != Nkv is
# refused with the reason, and a ragged decode batch runs on it (--plugin). Not built:
# one skip line.
SUITE=peer_ort_mha
. "$(dirname "$0")/lib.sh"
peer_plugin "${HR_ORT_MHA:-$ROOT/build/plugins/ort_mha.so}" \
    "make peers-setup peers: the onnxruntime wheel from PyPI" \
    "onnxruntime is not loaded under AddressSanitizer" || exit 0
K=(--plugin "$P" --kernel ort_mha)

expect list_shows 0 'ort_mha +causal,gqa,threaded,window,softcap,alibi .*MultiHeadAttention / GroupQueryAttention' -- $B list --plugin "$P"
expect list_origin 0 "plugin $P \(onnxruntime $VER, ABI 1\.1\)" -- $B list --plugin "$P"
expect list_path 0 "f32 +onnxruntime $VER MultiHeadAttention" -- $B list --plugin "$P"
expect list_bf16_refused 0 'bf16 +onnxruntime .* has no bf16 CPU kernel' -- $B list --plugin "$P"
expect list_mixed_refused 0 'f32/kv=f16 +ORT.s attention takes Q, K and V in one dtype' -- $B list --plugin "$P"

# The plugin moved away from ort_mha.libs/ and the site: the run fails in one line.
mkdir -p "$TMP/alone" && cp "$P" "$TMP/alone/"
expect alone_one_line 2 "run failed: import ort_mha \(onnxruntime, onnx, numpy\): No module named 'ort_mha'" -- $B run --plugin "$TMP/alone/ort_mha.so" --kernel ort_mha --seq 16 "${RUN[@]}"

# The oracle battery at 1, 2 and 3 threads, f32 and f16; the refused cases are listed
# with their reasons under --verbose.
$B check --quick "${K[@]}" --verbose > "$TMP/check.txt" 2>&1
rc=$?
expect check_exit 0 '' -- test $rc = 0
for t in f32 f16; do
    expect "check_$t" 0 "^ort_mha +$t +T1,2,3 +[1-9][0-9]* pass +[0-9]+ warn +0 fail +[0-9]+ not applicable +\[onnxruntime $VER" -- cat "$TMP/check.txt"
done
expect check_bf16_none 0 '^ort_mha +bf16 +T1,2,3 +0 pass +0 warn +0 fail' -- cat "$TMP/check.txt"
expect check_na_reason 0 '^n/a +ort_mha .*: causal with Nq > Nkv: rows that see no key' -- cat "$TMP/check.txt"
expect check_gqa_d8 0 '^n/a +ort_mha .*: GroupQueryAttention on CPU needs a head size that is a multiple of 8' -- cat "$TMP/check.txt"

# Each mapping on its own: MHA over BNHD (BSNH in place) and BHND (one head per
# sequence), causal by the attribute and by the bottom-right bias (Nq < Nkv), GQA over
# BNHD and (transposed) BHND, GQA decode and chunked prefill as MHA over KV groups.
expect run_mha_bnhd 0 'check: pass .*MultiHeadAttention\]' -- $B run "${K[@]}" --heads 4 --seq 40 --d-head 24 --layout bnhd --causal --threads 2 --check "${RUN[@]}"
expect run_mha_bhnd 0 'check: pass' -- $B run "${K[@]}" --heads 3 --batch 2 --seq 33 --seq-kv 70 --causal --check "${RUN[@]}"
expect run_gqa_bnhd 0 'check: pass .*GroupQueryAttention' -- $B run "${K[@]}" --heads 8 --kv-heads 2 --seq 48 --d-head 32 --layout bnhd --causal --threads 2 --check "${RUN[@]}"
expect run_gqa_bhnd 0 'check: pass .*GroupQueryAttention' -- $B run "${K[@]}" --heads 6 --kv-heads 3 --seq 20 --d-head 16 --check "${RUN[@]}"
expect run_groups_decode 0 'check: pass .*MultiHeadAttention over KV groups' -- $B run "${K[@]}" --heads 8 --kv-heads 2 --seq 1 --seq-kv 300 --d-head 64 --check "${RUN[@]}"
expect run_groups_chunk 0 'check: pass' -- $B run "${K[@]}" --heads 4 --kv-heads 1 --seq 9 --seq-kv 50 --causal --layout bnhd --threads 2 --check "${RUN[@]}"
expect run_f16 0 'check: pass' -- $B run "${K[@]}" --heads 4 --kv-heads 2 --seq 1 --seq-kv 64 --d-head 64 --dtype f16 --check "${RUN[@]}"
expect run_empty_rows_refused 2 'cannot run this shape: causal with Nq > Nkv' -- $B run "${K[@]}" --seq 16 --seq-kv 8 --causal "${RUN[@]}"

# A row of results names the plugin, the library and its version, the operator, threads.
$B run "${K[@]}" --heads 4 --seq 64 --threads 2 --format json "${RUN[@]}" > "$TMP/run.json" 2>/dev/null
expect row_library 0 '"plugin_library":[[:space:]]*"onnxruntime"' -- cat "$TMP/run.json"
expect row_version 0 "\"plugin_version\":[[:space:]]*\"$VER\"" -- cat "$TMP/run.json"
expect row_path 0 "\"path\":[[:space:]]*\"onnxruntime $VER MultiHeadAttention\"" -- cat "$TMP/run.json"
expect row_threads 0 '"threads":[[:space:]]*2,' -- cat "$TMP/run.json"

# The variants on attention_bias: BNHD and BHND (one head per sequence, a bias per
# sequence under ALiBi), over KV groups (Nq == Nkv too: never GroupQueryAttention),
# a decode row, odd N, d and a non-power-of-two Hq, f16.
V=(--plugin "$P" --kernel ort_mha "${RUN[@]}" --check)
expect var_window 0 "check: pass .*MultiHeadAttention, attention_bias\\]" -- $B run "${V[@]}" --seq 77 --seq-kv 93 --causal --window 13
expect var_alibi_bnhd 0 'check: pass' -- $B run "${V[@]}" --seq 77 --seq-kv 93 --alibi 8 --heads 6 --d-head 40 --layout bnhd
expect var_both_heads1 0 'check: pass' -- $B run "${V[@]}" --seq 50 --causal --window 9 --alibi 8 --heads 4 --batch 2
expect var_alibi_groups 0 'check: pass .*over KV groups, attention_bias' -- $B run "${V[@]}" --seq 77 --seq-kv 93 --causal --alibi 8 --heads 12 --kv-heads 3
expect var_both_groups_square 0 'check: pass .*over KV groups, attention_bias' -- $B run "${V[@]}" --seq 64 --causal --window 7 --alibi 8 --heads 6 --kv-heads 2 --layout bnhd --batch 2
expect var_both_decode 0 'check: pass' -- $B run "${V[@]}" --seq 1 --seq-kv 700 --causal --window 300 --alibi 8 --heads 8 --kv-heads 2 --threads 2
expect var_both_f16 0 'check: pass' -- $B run "${V[@]}" --seq 65 --dtype f16 --causal --window 9 --alibi 8 --heads 4 --kv-heads 2
# Nq == Nkv: GroupQueryAttention's own attributes, Hkv == Hq (one head per sequence over
# BHND) and Hkv < Hq, a head size GroupQueryAttention refuses falling back to the bias.
expect gqa_window_heads1 0 'check: pass .*GroupQueryAttention, local_window_size \(kv_num_heads = num_heads' -- $B run "${V[@]}" --seq 77 --causal --window 13 --heads 4 --batch 2 --d-head 40
expect gqa_window_gqa 0 'check: pass .*GroupQueryAttention, local_window_size \(BNHD' -- $B run "${V[@]}" --seq 70 --causal --window 1 --heads 6 --kv-heads 3 --layout bnhd --threads 2
expect gqa_window_d20 0 'check: pass .*MultiHeadAttention, attention_bias' -- $B run "${V[@]}" --seq 33 --causal --window 5 --heads 2 --d-head 20
expect gqa_softcap 0 'check: pass .*GroupQueryAttention, softcap \(kv' -- $B run "${V[@]}" --seq 50 --softcap 5 --heads 4 --layout bnhd
expect gqa_softcap_causal_bhnd 0 'check: pass .*GroupQueryAttention, softcap \(BNHD' -- $B run "${V[@]}" --seq 50 --causal --softcap 5 --heads 8 --kv-heads 2 --threads 3
expect gqa_all_three 0 'check: pass .*GroupQueryAttention, softcap, local_window_size, attention_bias' -- $B run "${V[@]}" --seq 64 --causal --window 9 --softcap 5 --alibi 8 --heads 6 --kv-heads 2 --batch 2
expect gqa_softcap_f16 0 'check: pass' -- $B run "${V[@]}" --seq 65 --dtype f16 --causal --window 9 --softcap 20 --heads 4 --kv-heads 2
expect refuses_softcap_decode 2 "cannot run this shape: soft cap with Nq != Nkv: MultiHeadAttention has none" -- $B run --plugin "$P" --kernel ort_mha --seq 1 --seq-kv 64 --softcap 30 "${RUN[@]}"
expect refuses_softcap_d20 2 "cannot run this shape: GroupQueryAttention on CPU needs a head size" -- $B run --plugin "$P" --kernel ort_mha --seq 16 --d-head 20 --softcap 30 "${RUN[@]}"
# The soft-cap and window batteries (odd shapes) against the oracle.
for vb in "--softcap 30" "--window 13" "--softcap 5 --window 9"; do
    n=$(echo "$vb" | tr -d ' -')
    $B check --quick "${K[@]}" $vb > "$TMP/check_$n.txt" 2>&1
    rc=$?
    expect "battery_${n}_exit" 0 '' -- test $rc = 0
    expect "battery_${n}_f32" 0 '^ort_mha +f32 +[a-z0-9-]+ +T1,2,3 +[1-9][0-9]* pass +[0-9]+ warn +0 fail' -- cat "$TMP/check_$n.txt"
done
# A ragged batch: one ORT run per sequence, a session per sequence's shape.
expect decode_batch 0 'check: all 3 sequences within tolerance' -- $B decode-batch --plugin "$P" --kernel ort_mha --lens 37,300,700 --rows 1,3,1 --heads 8 --kv-heads 2 --d 64 --threads 2 --reps 2 --check
finish
