#!/usr/bin/env bash
# peers/ort_mha/fairness.sh — is ONNX Runtime measured by headroom (through the ort_mha
# plugin) as fast as an ORT user measures it? For each shape and thread count,
# `headroom run --kernel ort_mha --layout bnhd` and fairness_timer.py (a time.perf_counter
# loop over sess.run_with_iobinding on the same model, BSNH fp32, same threads) alternate
# A B A B ..., each under the timing lock (flock /tmp/hr-timing.lock, or $HR_TIMING_LOCK),
# with the load average beside every pair. Prints per pair and a summary: medians and
# headroom/ort. T0 is the per-call overhead shape (B1 H1 N1 d8: nearly no work).
#
# usage: peers/ort_mha/fairness.sh [--pairs N] [--threads "1 2"] [--bind unpinned|pinned] [SHAPE...]
#   SHAPE: T0 S1 S2 G1 (default: all). T0 B1 H1 N1 d8; S1 H8 N1024 d64; S2 H16 N2048 d64;
#   G1 H16/G4 N1024 d64 causal (GroupQueryAttention). --bind: unpinned (default:
#   OMP_PROC_BIND=false for headroom, so its caller thread and ORT's pool are unpinned as
#   under Python) or pinned (headroom's default binding; the plugin then places ORT's pool
#   threads on the CPUs after the caller's; Python is pinned the same way with taskset).
# Needs: ./headroom and build/plugins/ort_mha.so (make; make peers-setup peers). Results:
# stdout, and a CSV under build/peers/ort_mha/fairness-DATE.csv.
set -uo pipefail
cd "$(dirname "$0")/../.."
D=build/peers/ort_mha
PY=$(cat "$D/site/.python" 2>/dev/null)
PLUG=build/plugins/ort_mha.so
HR=./headroom
. peers/fairness_args.sh
fairness_args "T0 S1 S2 G1" 19 "$@"
[ -x "$HR" ] && [ -f "$PLUG" ] && [ -n "$PY" ] ||
    { echo "fairness.sh: needs ./headroom and $PLUG (make; make peers-setup peers)" >&2; exit 2; }
command -v flock >/dev/null || { echo "fairness.sh: needs flock (util-linux)" >&2; exit 2; }
case $bind in
unpinned) hrenv=(OMP_PROC_BIND=false OMP_PLACES=cores) pyrun=() ;;
pinned) hrenv=(OMP_PROC_BIND=close OMP_PLACES=cores) pyrun=(taskset -c 0) ;;
*) echo "fairness.sh: --bind unpinned|pinned, not '$bind'" >&2; exit 2 ;;
esac
shape() { # shape NAME: sets H G N M DH C
    case $1 in
    T0) H=1 G=1 N=1 M=1 DH=8 C=0 ;;
    S1) H=8 G=8 N=1024 M=1024 DH=64 C=0 ;;
    S2) H=16 G=16 N=2048 M=2048 DH=64 C=0 ;;
    G1) H=16 G=4 N=1024 M=1024 DH=64 C=1 ;;
    esac
}
med() { sort -g | awk '{a[NR]=$1} END {print (NR%2) ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2}'; }
us() { awk -v x="$1" 'BEGIN {printf "%.3f", x * 1e6}'; }
csv=$D/fairness-$(date -u +%Y%m%dT%H%M%S).csv
echo "shape,threads,pair,tool,median_s,load1" > "$csv"
summary=()
for s in "${shapes[@]}"; do
    shape "$s"
    cflag=()
    [ $C = 1 ] && cflag=(--causal)
    for t in $threads; do
        hr=() op=() rt=()
        for ((i = 1; i <= pairs; i++)); do
            l=$(cut -d' ' -f1 /proc/loadavg)
            a=$(env "${hrenv[@]}" flock "$LOCK" "$HR" run --plugin "$PLUG" --kernel ort_mha --heads $H --kv-heads $G \
                --seq $N --seq-kv $M --d-head $DH "${cflag[@]}" --layout bnhd --threads $t --reps 9 --min-time 0.2 \
                --warmup 0.3 --no-probe --quiet --format csv 2>/dev/null |
                awk -F, 'NR == 1 {for (i = 1; i <= NF; i++) if ($i == "time_median_s") c = i} NR == 2 {print $c}')
            [ -n "$a" ] || { echo "fairness.sh: headroom run failed for $s T$t" >&2; exit 1; }
            bline=$(PYTHONPATH=$D/site flock "$LOCK" "${pyrun[@]}" "$PY" peers/ort_mha/fairness_timer.py --heads $H \
                --kv-heads $G --seq-q $N --seq-kv $M --d-head $DH "${cflag[@]}" --threads $t --min-run-time 2 \
                2>"$D/fairness-py.err" | tail -n 1)
            b=${bline%% *}
            [ -n "$b" ] || { echo "fairness.sh: fairness_timer.py failed for $s T$t ($(tail -n 1 "$D/fairness-py.err"))" >&2; exit 1; }
            hr+=("$a") op+=("$b") rt+=("$(awk -v x="$a" -v y="$b" 'BEGIN {print x / y}')")
            printf '%s T%s pair %d: headroom %s us  ort %s us  ratio %.3f  (load %s; ort: %s)\n' "$s" "$t" "$i" \
                "$(us "$a")" "$(us "$b")" "$(awk -v x="$a" -v y="$b" 'BEGIN {print x / y}')" "$l" "${bline#* }"
            printf '%s,%s,%d,headroom,%s,%s\n%s,%s,%d,ort,%s,%s\n' "$s" "$t" "$i" "$a" "$l" "$s" "$t" "$i" "$b" "$l" >> "$csv"
        done
        ma=$(printf '%s\n' "${hr[@]}" | med) mb=$(printf '%s\n' "${op[@]}" | med) mr=$(printf '%s\n' "${rt[@]}" | med)
        summary+=("$(printf '%-3s T%s  headroom %12s us  ORT perf_counter loop %12s us  headroom/ort per pair: median %.3f (%s)' \
            "$s" "$t" "$(us "$ma")" "$(us "$mb")" "$mr" "$(printf '%.2f ' "${rt[@]}" | sed 's/ $//')")")
    done
done
echo "summary (binding $bind; medians of $pairs interleaved pairs; raw: $csv):"
printf '%s\n' "${summary[@]}"
