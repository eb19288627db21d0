#!/usr/bin/env bash
# peers/ggml_fa/fairness.sh — ggml_flash_attn_ext timed by headroom (through the plugin)
# against the same op timed by llama.cpp's own tool, test-backend-ops -m perf, on the
# same shapes and thread counts, interleaved (A B A B ...), each pair under the timing
# lock (/tmp/hr-timing.lock, or $HR_TIMING_LOCK). A measurement, not a test: it builds test-backend-ops from the same sdist into
# build/peers/ggml_fa/fair/ (not in CI).
#
# test-backend-ops reads its cases from code and sets its threads to
# hardware_concurrency/2; the copy built here is patched (and only the copy) so that
#   HR_FAIR_CASE="hs,nh_kv,group,n_kv,n_q,mask" replaces the perf cases by one
#     test_flash_attn_ext(hs, hs, nh_kv, {group, 1}, n_kv, n_q, mask, ..., F32 K/V,
#     permute {0,2,1,3} (BNHD, llama.cpp's layout), kv_view false),
#   HR_FAIR_CAUSAL=1 fills the mask bottom-right causal (headroom's rule) instead of
#     test-backend-ops' random blocks, and
#   HR_FAIR_THREADS=T sets the CPU backend's threads.
# headroom runs the same problem with --layout bnhd (ggml writes O in place). Both get the
# same OpenMP binding (OMP_PROC_BIND=close OMP_PLACES=cores, headroom's default).
#
# usage: peers/ggml_fa/fairness.sh [ROUNDS] [SHAPE...]     (3; S1 S2 S3 S4 S5 S6 D1 D2)
#   THREADS="1 2" (default) picks the thread counts. Prints one line per shape and thread
#   count: the medians over the rounds of headroom's median and of test-backend-ops'
#   mean per run, their ratio, and the load average when the shape finished.
set -euo pipefail
cd "$(dirname "$0")/../.."
root=$PWD
rounds=${1:-3}
shift || true
shapes=${*:-S1 S2 S3 S4 S5 S6 D1 D2}
threads=${THREADS:-1 2}
dir=$root/build/peers/ggml_fa
src=$dir/src/llama_cpp_python-0.3.36/vendor/llama.cpp
fair=$dir/fair
plugin=$root/build/plugins/ggml_fa.so
[ -f "$src/tests/test-backend-ops.cpp" ] || { echo "fairness: no ggml source (make peers-setup)" >&2; exit 2; }
[ -f "$plugin" ] || { echo "fairness: no $plugin (make peers)" >&2; exit 2; }
[ -x "$root/headroom" ] || { echo "fairness: no ./headroom (make)" >&2; exit 2; }

# test-backend-ops, from the same ggml build as the plugin (plus libggml.a, the registry).
mkdir -p "$fair"
if [ ! -x "$fair/test-backend-ops" ]; then
    cmake --build "$dir/build" -j 2 --target ggml > "$fair/build.log" 2>&1
    python3 - "$src/tests/test-backend-ops.cpp" "$fair/test-backend-ops.cpp" <<'EOF'
import sys
s = open(sys.argv[1]).read()
def sub(old, new):
    global s
    assert s.count(old) == 1, old
    s = s.replace(old, new)
sub("ggml_backend_set_n_threads_fn(backend.get(), std::max<int>(1, N_THREADS/2));",
    "ggml_backend_set_n_threads_fn(backend.get(), getenv(\"HR_FAIR_THREADS\") ? atoi(getenv(\"HR_FAIR_THREADS\")) : std::max<int>(1, N_THREADS/2));")
sub("""static std::vector<std::unique_ptr<test_case>> make_test_cases_perf() {
    std::vector<std::unique_ptr<test_case>> test_cases;
""", """static std::vector<std::unique_ptr<test_case>> make_test_cases_perf() {
    std::vector<std::unique_ptr<test_case>> test_cases;
    if (const char * c = getenv("HR_FAIR_CASE")) { // headroom fairness.sh: one case
        int hs, nh, g, kv, nb, mask;
        GGML_ASSERT(sscanf(c, "%d,%d,%d,%d,%d,%d", &hs, &nh, &g, &kv, &nb, &mask) == 6);
        test_cases.emplace_back(new test_flash_attn_ext(hs, hs, nh, {g, 1}, kv, nb, mask != 0, false, 0.0f, 0.0f,
            GGML_PREC_F32, GGML_TYPE_F32, GGML_TYPE_F32, {0, 2, 1, 3}, false));
        return test_cases;
    }
""")
sub("""            } else if (strcmp(t->name, "m") == 0) {
                if (n_kv_max > 0) {""", """            } else if (strcmp(t->name, "m") == 0 && getenv("HR_FAIR_CAUSAL")) {
                // headroom's causal rule, bottom-right aligned: key j visible to row i iff j <= i + kv - nb
                std::vector<ggml_fp16_t> m(ggml_nelements(t));
                for (int64_t r = 0; r < ggml_nrows(t); r++) {
                    const int64_t i = r % t->ne[1];
                    for (int64_t j = 0; j < t->ne[0]; j++)
                        m[r*t->ne[0] + j] = ggml_fp32_to_fp16(j <= i + t->ne[0] - t->ne[1] ? 0.0f : -INFINITY);
                }
                ggml_backend_tensor_set(t, m.data(), 0, ggml_nbytes(t));
            } else if (strcmp(t->name, "m") == 0) {
                if (n_kv_max > 0) {""")
open(sys.argv[2], "w").write(s)
EOF
    c++ -O2 -std=c++17 -march=native -fopenmp -I "$src/ggml/include" "$fair/test-backend-ops.cpp" \
        "$dir/build/ggml/src/libggml.a" "$dir/build/ggml/src/libggml-cpu.a" "$dir/build/ggml/src/libggml-base.a" \
        -o "$fair/test-backend-ops" -lm -lpthread
fi

# shape: headroom flags | test-backend-ops case (hs,nh_kv,group,n_kv,n_q,mask) | causal
shape() {
    case $1 in
    S1) echo "--heads 8 --seq 1024 --d-head 64|64,8,1,1024,1024,0|" ;;
    S2) echo "--heads 16 --seq 2048 --d-head 64|64,16,1,2048,2048,0|" ;;
    S3) echo "--heads 32 --seq 2048 --d-head 128 --causal|128,32,1,2048,2048,1|1" ;;
    S4) echo "--heads 32 --kv-heads 8 --seq 2048 --d-head 128 --causal|128,8,4,2048,2048,1|1" ;;
    S5) echo "--heads 32 --kv-heads 8 --seq 4096 --d-head 128 --causal|128,8,4,4096,4096,1|1" ;;
    S6) echo "--heads 16 --kv-heads 1 --seq 2048 --d-head 64 --causal|64,1,16,2048,2048,1|1" ;;
    # decode: one query row sees the whole cache, causal or not; neither side has a mask
    D1) echo "--heads 32 --kv-heads 8 --seq 1 --seq-kv 4096 --d-head 128 --causal|128,8,4,4096,1,0|" ;;
    D2) echo "--heads 32 --kv-heads 8 --seq 1 --seq-kv 16384 --d-head 128 --causal|128,8,4,16384,1,0|" ;;
    *) echo "fairness: unknown shape $1" >&2; exit 2 ;;
    esac
}
median() { sort -g | awk '{a[NR] = $1} END {print NR % 2 ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2}'; }
export OMP_PROC_BIND=close OMP_PLACES=cores
lock=${HR_TIMING_LOCK:-/tmp/hr-timing.lock}
printf '%-4s %2s %14s %14s %8s  %s\n' shape T headroom_ms tbo_ms hr/tbo load
for s in $shapes; do
    IFS='|' read -r hrflags tcase causal <<< "$(shape "$s")"
    for t in $threads; do
        : > "$fair/a" && : > "$fair/b"
        for ((r = 0; r < rounds; r++)); do
            # One pair per hold of the timing lock: A then B back to back, so both see the
            # same machine (the lock only keeps other timing runs out, not builds).
            exec 9> "$lock"
            flock 9
            # A: headroom, the plugin, its own timer (median of its repetitions)
            "$root/headroom" run --plugin "$plugin" --kernel ggml_fa $hrflags --layout bnhd \
                --threads "$t" --reps 5 --no-probe --no-wisdom --quiet --format csv 2> /dev/null |
                awk -F, 'NR == 1 {for (i = 1; i <= NF; i++) if ($i == "time_median_s") c = i} NR == 2 {print $c * 1000}' >> "$fair/a"
            # B: test-backend-ops perf, its own timer (mean per run over >= 1 s)
            HR_FAIR_CASE=$tcase HR_FAIR_CAUSAL=$causal HR_FAIR_THREADS=$t \
                "$fair/test-backend-ops" perf -b CPU -o FLASH_ATTN_EXT 2> /dev/null |
                sed -n 's/.* \([0-9.]*\) us\/run.*/\1/p' | awk '{print $1 / 1000}' >> "$fair/b"
            exec 9>&-
        done
        a=$(median < "$fair/a") b=$(median < "$fair/b")
        printf '%-4s %2s %14.3f %14.3f %8.3f  %s\n' "$s" "$t" "$a" "$b" "$(awk -v a="$a" -v b="$b" 'BEGIN {print (b > 0 ? a / b : 0)}')" \
            "$(uptime | sed 's/.*load average: //')"
        echo "  $s T$t rounds headroom: $(paste -sd' ' "$fair/a")  tbo: $(paste -sd' ' "$fair/b")" >&2
    done
done
