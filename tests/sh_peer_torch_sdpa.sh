# sh_peer_torch_sdpa.sh — the torch_sdpa peer (peers/torch_sdpa: PyTorch's
# at::scaled_dot_product_attention through libtorch's CPU libraries) end to end, when
# `make peers-setup peers` built it: it loads with one OpenMP runtime in the process,
# `list` shows it, the oracle battery passes for every type it declares, the bottom-right
# causal mask and BNHD views check, mixed types are refused with the reason, and a run's
# results name the plugin, libtorch's version and the backend SDPA chose. The variants it
# takes (window, ALiBi: a float attn_mask) pass the oracle alone and together on odd
# shapes and every type, its path names the mask, a soft cap (SDPA has none) is refused
# with the reason, and a ragged decode batch runs on it (--plugin). Not built: one skip
# line, never an ok.
SUITE=peer_torch_sdpa
. "$(dirname "$0")/lib.sh"
peer_plugin "${HR_TORCH_SDPA:-$ROOT/build/plugins/torch_sdpa.so}" \
    "make peers-setup peers: the PyTorch wheel from PyPI" \
    "libtorch is not loaded under AddressSanitizer (RTLD_DEEPBIND)" || exit 0

# The kernel is linked against the CPU libraries only: neither libtorch.so nor
# libtorch_cuda.so; the plugin headroom loads is loader.c, beside it in torch_sdpa.libs/.
readelf -d "$(dirname "$P")/torch_sdpa.libs/torch_sdpa_impl.so" | sed -n 's/.*NEEDED.*\[\(.*\)\]/\1/p' > "$TMP/needed"
expect links_torch_cpu 0 '^libtorch_cpu\.so$' -- cat "$TMP/needed"
if grep -Eq '^libtorch(_cuda)?\.so$' "$TMP/needed"; then fail links_no_cuda "$(tr '\n' ' ' < "$TMP/needed")"; else ok links_no_cuda; fi
# One OpenMP runtime in the process: libtorch_cpu's NEEDED libgomp.so.1 resolves to the
# one headroom already loaded (by soname), not to the copy inside the wheel.
inits=$(LD_DEBUG=libs timeout 120 "$B" list --plugin "$P" 2>&1 | sed -n 's/.*calling init: \(.*libgomp[^ ]*\).*/\1/p' | sort -u)
if [ "$(printf '%s\n' "$inits" | grep -c .)" = 1 ]; then ok one_openmp; else fail one_openmp "libgomp copies initialised: $(echo $inits)"; fi

# libtorch's BLAS calls bind to its own MKL, not to the libopenblas headroom links
# (loader.c opens it with RTLD_DEEPBIND): what a PyTorch user runs.
LD_DEBUG=bindings timeout 120 "$B" list --plugin "$P" 2>&1 | grep "libtorch_cpu\.so .*symbol \`sgemm_'" > "$TMP/sgemm"
if [ "$(grep -c . "$TMP/sgemm")" = 1 ] && grep -q " to [^ ]*/libtorch_cpu\.so " "$TMP/sgemm"; then ok sgemm_is_torchs
else fail sgemm_is_torchs "libtorch_cpu's sgemm_ bound elsewhere: $(sed 's/.* to //' "$TMP/sgemm")"; fi
# The loader without its impl: one line naming the reason, the command exit 2.
mkdir -p "$TMP/alone" && cp "$P" "$TMP/alone/"
expect loader_alone 2 'torch_sdpa: cannot load libtorch: .*torch_sdpa_impl\.so' -- $B list --plugin "$TMP/alone/torch_sdpa.so"

expect list_shows 0 'torch_sdpa +causal,gqa,threaded,window,alibi .*at::scaled_dot_product_attention' -- $B list --plugin "$P"
expect list_origin 0 "plugin $P \(libtorch $VER, ABI 1\.1\)" -- $B list --plugin "$P"
expect list_path 0 "f32 +libtorch $VER sdpa (flash_attention|math)" -- $B list --plugin "$P"
expect list_mixed_refused 0 'f32/kv=bf16 +torch SDPA takes Q, K and V in one dtype' -- $B list --plugin "$P"

# The oracle battery (odd N and d, MHA/GQA/MQA, causal with Nq < and > Nkv, rows that see
# no key, BHND and BNHD) at 1, 2 and 3 threads, for f32, bf16 and f16.
$B check --quick --kernel torch_sdpa --plugin "$P" > "$TMP/check.txt" 2>&1
rc=$?
expect check_exit 0 '' -- test $rc = 0
for t in f32 bf16 f16; do
    expect "check_$t" 0 "^torch_sdpa $t +T1,2,3 +[1-9][0-9]* pass +[0-9]+ warn +0 fail +[0-9]+ not applicable +\[libtorch $VER sdpa" -- cat "$TMP/check.txt"
done

# The cases the mask and the views carry, checked one by one: bottom-right causal with
# Nq < Nkv (chunked prefill), Nq > Nkv (leading rows see nothing: zeros), a decode row,
# GQA and MQA, BNHD, 1 and 2 threads.
expect run_mask_prefill 0 'check: pass' -- $B run --plugin "$P" --kernel torch_sdpa --heads 4 --kv-heads 2 --seq 33 --seq-kv 70 --causal --threads 2 --check "${RUN[@]}"
expect run_mask_empty_rows 0 'check: pass' -- $B run --plugin "$P" --kernel torch_sdpa --heads 4 --kv-heads 1 --seq 50 --seq-kv 9 --causal --layout bnhd --threads 1 --check "${RUN[@]}"
expect run_decode 0 'check: pass' -- $B run --plugin "$P" --kernel torch_sdpa --heads 8 --kv-heads 2 --seq 1 --seq-kv 300 --d-head 128 --causal --check "${RUN[@]}"
expect run_bf16_bnhd 0 'check: pass' -- $B run --plugin "$P" --kernel torch_sdpa --heads 6 --kv-heads 3 --seq 40 --d-head 80 --dtype bf16 --layout bnhd --causal --check "${RUN[@]}"
expect run_mixed_refused 2 'cannot run this shape: torch SDPA takes Q, K and V in one dtype' -- $B run --plugin "$P" --kernel torch_sdpa --seq 16 --kv-dtype bf16 "${RUN[@]}"

# A row of results names the plugin, the library and its version, the backend, threads.
$B run --plugin "$P" --kernel torch_sdpa --heads 4 --seq 64 --threads 2 --format json "${RUN[@]}" > "$TMP/run.json" 2>/dev/null
expect row_plugin 0 "\"plugin\":[[:space:]]*\"$P\"" -- cat "$TMP/run.json"
expect row_library 0 '"plugin_library":[[:space:]]*"libtorch"' -- cat "$TMP/run.json"
expect row_version 0 "\"plugin_version\":[[:space:]]*\"$VER\"" -- cat "$TMP/run.json"
expect row_path 0 "\"path\":[[:space:]]*\"libtorch $VER sdpa (flash_attention|math)\"" -- cat "$TMP/run.json"
expect row_threads 0 '"threads":[[:space:]]*2,' -- cat "$TMP/run.json"
expect context_plugins 0 '"library":[[:space:]]*"libtorch"' -- cat "$TMP/run.json"

# tune searches the thread count through the plugin (checked candidates, nothing stored).
expect tune_runs 0 '' -- $B tune --plugin "$P" --kernel torch_sdpa --heads 2 --seq 32 --budget 2 --min-time 0.002 --rounds 3 --dry-run

# The variants as a float attn_mask: odd N and d, a non-power-of-two Hq (ALiBi's second
# slope series), GQA, Nq < and > Nkv (rows that see no key), a decode row, BNHD, bf16, f16.
V=(--plugin "$P" --kernel torch_sdpa "${RUN[@]}" --check)
expect var_window 0 "check: pass .*\\[libtorch $VER sdpa [a-z_]+, float attn_mask\\]" -- $B run "${V[@]}" --seq 77 --seq-kv 93 --causal --window 13 --heads 4 --kv-heads 2
expect var_alibi 0 'check: pass' -- $B run "${V[@]}" --seq 77 --seq-kv 93 --alibi 8 --heads 6 --kv-heads 2 --d-head 40
expect var_alibi_causal 0 'check: pass' -- $B run "${V[@]}" --seq 77 --seq-kv 93 --causal --alibi 8 --heads 12 --kv-heads 3 --threads 2
expect var_both_short_kv 0 'check: pass' -- $B run "${V[@]}" --seq 70 --seq-kv 20 --causal --window 7 --alibi 8 --heads 5
expect var_both_decode 0 'check: pass' -- $B run "${V[@]}" --seq 1 --seq-kv 700 --causal --window 300 --alibi 8 --heads 8 --kv-heads 2
expect var_both_bnhd 0 'check: pass' -- $B run "${V[@]}" --seq 130 --causal --window 33 --alibi 4 --heads 3 --kv-heads 1 --d-head 80 --layout bnhd --batch 2
expect var_both_bf16 0 'check: pass' -- $B run "${V[@]}" --seq 65 --dtype bf16 --causal --window 9 --alibi 8 --heads 4 --kv-heads 2
expect var_alibi_f16 0 'check: pass' -- $B run "${V[@]}" --seq 41 --seq-kv 50 --dtype f16 --alibi 8 --heads 4
expect path_bool_mask 0 "check: pass .*, bool attn_mask\\]" -- $B run "${V[@]}" --seq 40 --seq-kv 50 --causal
expect refuses_softcap 2 "cannot run this shape: no soft-capped scores \\(--softcap; capability 'softcap'\\)" -- $B run --plugin "$P" --kernel torch_sdpa --seq 16 --softcap 30 "${RUN[@]}"
# A ragged batch as a PyTorch user runs it without nested tensors: one SDPA per sequence.
expect decode_batch 0 'check: all 3 sequences within tolerance' -- $B decode-batch --plugin "$P" --kernel torch_sdpa --lens 37,300,700 --rows 1,3,1 --heads 8 --kv-heads 2 --d 64 --threads 2 --reps 2 --check
finish
