#!/usr/bin/env bash
# peers/torch_sdpa/fairness.sh — is PyTorch SDPA measured by headroom (through the
# torch_sdpa plugin) as fast as PyTorch measures itself? For each shape and thread count,
# `headroom run --kernel torch_sdpa` and fairness_timer.py (torch.utils.benchmark.Timer
# over F.scaled_dot_product_attention, same shape, BHND, fp32, same threads) alternate
# A B A B ..., each under the timing lock (flock /tmp/hr-timing.lock, or $HR_TIMING_LOCK:
# a caller that already holds the machine names another file), with the load
# average beside every pair. Prints per pair and a summary: medians and headroom/torch.
#
# usage: peers/torch_sdpa/fairness.sh [--pairs N] [--threads "1 2"] [--bind unpinned|pinned|as-is] [SHAPE...]
#   SHAPE: S1..S6 D1 D2 (default: all). --bind gives both sides the same thread binding:
#   unpinned (default: OMP_PROC_BIND=false for both, a PyTorch user's default), pinned
#   (OMP_PROC_BIND=close OMP_PLACES=cores for both, headroom's default), or as-is (each
#   tool its own default: headroom pinned, Python not, and no huge pages for Python;
#   the other two put Python's Q, K, V on huge pages as headroom's are: --thp-inputs). On a shared machine headroom's
#   pinning puts a 1-thread run on core 0 whatever else runs there: as-is then compares
#   the binding, not the kernel (measured: 0.36 s pinned vs 0.22 s unpinned, S2 T1).
# Needs: ./headroom and build/plugins/torch_sdpa.so (make; make peers-setup peers), and
# `import torch`, for which a venv is made once under build/peers/torch_sdpa/venv: the
# wheel with --no-deps plus what `import torch` needs (its Python requirements and the
# CUDA 13 libraries libtorch_cuda.so names as NEEDED: several GB, only for this script;
# the plugin itself needs none of them). Results: stdout, and a CSV under
# build/peers/torch_sdpa/fairness-DATE.csv.
set -uo pipefail
cd "$(dirname "$0")/../.."
VER=${HR_TORCH_VERSION:-2.15.0}
D=build/peers/torch_sdpa
PY=$D/venv/bin/python
PLUG=build/plugins/torch_sdpa.so
HR=./headroom
. peers/fairness_args.sh
fairness_args "S1 S2 S3 S4 S5 S6 D1 D2" 22 "$@"
[ -x "$HR" ] && [ -f "$PLUG" ] || { echo "fairness.sh: needs ./headroom and $PLUG (make; make peers-setup peers)" >&2; exit 2; }
command -v flock >/dev/null || { echo "fairness.sh: needs flock (util-linux)" >&2; exit 2; }

# The venv for `import torch`, made once.
if ! "$PY" -c 'import torch' >/dev/null 2>&1; then
    echo "fairness.sh: making $D/venv (torch $VER --no-deps and what import torch needs)" >&2
    python3 -m venv "$D/venv" || exit 2
    "$D/venv/bin/pip" install -q --no-deps "torch==$VER" || exit 2
    # torch's Linux requirements (markers evaluated here), less triton and cuda-bindings,
    # which import torch does not load; numpy for Timer's summaries.
    reqs=$("$PY" - <<'EOF'
from importlib.metadata import requires
from pip._vendor.packaging.requirements import Requirement
for r in requires("torch"):
    q = Requirement(r)
    if q.name in ("triton", "cuda-bindings") or (q.marker and not q.marker.evaluate({"extra": ""})):
        continue
    print(str(q).split(";")[0])
EOF
)
    # shellcheck disable=SC2086
    "$D/venv/bin/pip" install -q $reqs numpy || exit 2
    "$PY" -c 'import torch' || exit 2
fi

shape() { # shape NAME: sets H G N M DH C
    case $1 in
    S1) H=8 G=8 N=1024 M=1024 DH=64 C=0 ;;
    S2) H=16 G=16 N=2048 M=2048 DH=64 C=0 ;;
    S3) H=32 G=32 N=2048 M=2048 DH=128 C=1 ;;
    S4) H=32 G=8 N=2048 M=2048 DH=128 C=1 ;;
    S5) H=32 G=8 N=4096 M=4096 DH=128 C=1 ;;
    S6) H=16 G=1 N=2048 M=2048 DH=64 C=1 ;;
    D1) H=32 G=8 N=1 M=4096 DH=128 C=1 ;;
    D2) H=32 G=8 N=1 M=16384 DH=128 C=1 ;;
    esac
}
med() { sort -g | awk '{a[NR]=$1} END {print (NR%2) ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2}'; }
load() { cut -d' ' -f1 /proc/loadavg; }
# headroom re-execs itself to pin unless both variables are set; a user's values win.
case $bind in
# Memory alike too: headroom's inputs are on transparent huge pages (madvise), and so are
# Python's with --thp-inputs (D2, T1: 58 ms on 4 KiB pages, 51-56 ms on huge ones, as
# headroom). Not THP_MEM_ALLOC_ENABLE=1: that also puts PyTorch's per-call output and
# workspaces on fresh huge pages, which they are not inside headroom (S2, T2: 71-76 ms
# against 59-67 without it, headroom 58-62).
unpinned) hrenv=(OMP_PROC_BIND=false OMP_PLACES=cores) pyenv=(OMP_PROC_BIND=false) pyarg=(--thp-inputs) ;;
pinned) hrenv=(OMP_PROC_BIND=close OMP_PLACES=cores) pyenv=(OMP_PROC_BIND=close OMP_PLACES=cores) pyarg=(--thp-inputs) ;;
as-is) hrenv=() pyenv=() pyarg=() ;;
*) echo "fairness.sh: --bind unpinned|pinned|as-is, not '$bind'" >&2; exit 2 ;;
esac
csv=$D/fairness-$(date -u +%Y%m%dT%H%M%S).csv
echo "shape,threads,pair,tool,median_s,load1" > "$csv"
summary=()
for s in "${shapes[@]}"; do
    shape "$s"
    cflag=()
    [ $C = 1 ] && cflag=(--causal)
    for t in $threads; do
        hr=() tp=() rt=()
        for ((i = 1; i <= pairs; i++)); do
            l=$(load)
            a=$(env "${hrenv[@]}" flock "$LOCK" "$HR" run --plugin "$PLUG" --kernel torch_sdpa --heads $H --kv-heads $G --seq $N --seq-kv $M \
                --d-head $DH "${cflag[@]}" --threads $t --reps 9 --min-time 0.2 --warmup 0.3 --no-probe --quiet \
                --format csv 2>/dev/null | awk -F, 'NR == 1 {for (i = 1; i <= NF; i++) if ($i == "time_median_s") c = i} NR == 2 {print $c}')
            [ -n "$a" ] || { echo "fairness.sh: headroom run failed for $s T$t" >&2; exit 1; }
            # Python's runs as long as headroom's nine repetitions (at least 2 s).
            mrt=$(awk -v m="$a" 'BEGIN {x = 9 * (m > 0.2 ? m : 0.2); print ((x > 2) ? x : 2)}')
            bline=$(env "${pyenv[@]}" flock "$LOCK" "$PY" peers/torch_sdpa/fairness_timer.py --heads $H --kv-heads $G \
                --seq-q $N --seq-kv $M --d-head $DH "${cflag[@]}" --threads $t --min-run-time "$mrt" "${pyarg[@]}" 2>"$D/fairness-py.err" | tail -n 1)
            b=${bline%% *}
            [ -n "$b" ] || { echo "fairness.sh: fairness_timer.py failed for $s T$t" >&2; exit 1; }
            hr+=("$a") tp+=("$b") rt+=("$(awk -v x="$a" -v y="$b" 'BEGIN {print x / y}')")
            printf '%s T%s pair %d: headroom %.3f ms  torch %.3f ms  ratio %.3f  (load %s; torch: %s)\n' "$s" "$t" "$i" \
                "$(awk -v x="$a" 'BEGIN {print x * 1e3}')" "$(awk -v x="$b" 'BEGIN {print x * 1e3}')" \
                "$(awk -v x="$a" -v y="$b" 'BEGIN {print x / y}')" "$l" "${bline#* }"
            printf '%s,%s,%d,headroom,%s,%s\n%s,%s,%d,torch,%s,%s\n' "$s" "$t" "$i" "$a" "$l" "$s" "$t" "$i" "$b" "$l" >> "$csv"
        done
        ma=$(printf '%s\n' "${hr[@]}" | med) mb=$(printf '%s\n' "${tp[@]}" | med) mr=$(printf '%s\n' "${rt[@]}" | med)
        summary+=("$(printf '%-3s T%s  headroom %10.3f ms  torch.utils.benchmark %10.3f ms  headroom/torch per pair: median %.3f (%s)' \
            "$s" "$t" "$(awk -v x="$ma" 'BEGIN {print x * 1e3}')" "$(awk -v x="$mb" 'BEGIN {print x * 1e3}')" "$mr" \
            "$(printf '%.2f ' "${rt[@]}" | sed 's/ $//')")")
    done
done
echo "summary (binding $bind; medians of $pairs interleaved pairs; raw: $csv):"
printf '%s\n' "${summary[@]}"
