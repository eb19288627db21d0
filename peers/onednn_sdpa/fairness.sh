#!/usr/bin/env bash
# peers/onednn_sdpa/fairness.sh — is headroom's figure for onednn_sdpa oneDNN's own figure?
# For each shape and thread count: headroom timing the plugin (A) and sdpa_bench timing the
# same compiled partitions outside headroom (B), interleaved A B A B ..., each pair under
# `flock /tmp/hr-timing.lock` ($HR_TIMING_LOCK if set). Prints, for wall time and for process CPU time per call, the
# median over the rounds of each side's median and the median of the per-pair ratios A/B
# (robust to load that drifts between pairs; CPU time is what the calls cost when the
# machine is shared, wall time also how much of the cores they were given), with the load.
#   bash peers/onednn_sdpa/fairness.sh [--rounds R] [--threads "1 2"] [--reps N] [--hugepages] [SHAPE...]
# --hugepages: sdpa_bench allocates its tensors as headroom does (2 MiB aligned, MADV_HUGEPAGE);
# without it, as benchdnn does (plain heap: 4 KiB pages where THP is "madvise").
# SHAPE is one of S1 S2 S3 S4 S5 S6 D1 D2 (default: S1 S2 S4 D1 D2). Both sides run
# with headroom's thread binding (OMP_PROC_BIND=close, OMP_PLACES=cores) and the same warm-up
# rule (at least one untimed call), repetitions and minimum time per repetition.
set -uo pipefail
cd "$(dirname "$0")/../.."
HR=${HR_BIN:-./headroom}
PLUG=${ONEDNN_PLUGIN:-build/plugins/onednn_sdpa.so}
DRV=build/peers/onednn_sdpa/sdpa_bench
rounds=5 threads="1 2" reps=3 shapes=() huge=
while [ $# -gt 0 ]; do
    case $1 in
    --rounds) rounds=$2; shift 2 ;;
    --threads) threads=$2; shift 2 ;;
    --reps) reps=$2; shift 2 ;;
    --hugepages) huge=--hugepages; shift ;;
    -*) echo "fairness.sh: unknown option $1" >&2; exit 2 ;;
    *) shapes+=("$1"); shift ;;
    esac
done
[ ${#shapes[@]} -gt 0 ] || shapes=(S1 S2 S4 D1 D2)
for f in "$HR" "$PLUG" "$DRV"; do
    [ -e "$f" ] || { echo "fairness.sh: $f missing (make && make peers-setup peers)" >&2; exit 2; }
done
shape() {
    case $1 in
    S1) echo "--heads 8 --seq 1024 --d-head 64" ;;
    S2) echo "--heads 16 --seq 2048 --d-head 64" ;;
    S3) echo "--heads 32 --seq 2048 --d-head 128 --causal" ;;
    S4) echo "--heads 32 --kv-heads 8 --seq 2048 --d-head 128 --causal" ;;
    S5) echo "--heads 32 --kv-heads 8 --seq 4096 --d-head 128 --causal" ;;
    S6) echo "--heads 16 --kv-heads 1 --seq 2048 --d-head 64 --causal" ;;
    D1) echo "--heads 32 --kv-heads 8 --seq 1 --seq-kv 4096 --d-head 128 --causal" ;;
    D2) echo "--heads 32 --kv-heads 8 --seq 1 --seq-kv 16384 --d-head 128 --causal" ;;
    *) return 1 ;;
    esac
}
export OMP_PROC_BIND=${OMP_PROC_BIND:-close} OMP_PLACES=${OMP_PLACES:-cores}
TIMING=(--reps "$reps" --min-time 0.05 --warmup 0)
med() { sort -g | awk '{a[NR] = $1} END {print NR % 2 ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2}'; }
ratios() { # ratios A-LIST B-LIST: the median of the per-pair ratios a_i / b_i
    paste -d' ' <(printf '%s\n' $1) <(printf '%s\n' $2) | awk '$2 > 0 {print $1 / $2}' | med
}
# headroom's median wall and CPU ms per call, from its JSON aggregates (Google Benchmark's schema).
hr_ms() {
    awk '/"aggregate_name":[[:space:]]*"median"/ {m = 1}
         m && /"real_time"/ {gsub(/[^0-9.e+-]/, "", $2); r = $2}
         m && /"cpu_time"/ {gsub(/[^0-9.e+-]/, "", $2); print "A", r / 1e6, $2 / 1e6; exit}'
}
printf '%-4s %2s %10s %10s %7s %10s %10s %7s  %s\n' shape T hr_wall_ms drv_wall_ms ratio hr_cpu_ms drv_cpu_ms ratio \
    "load (1-min avg at start, end)"
for s in "${shapes[@]}"; do
    args=$(shape "$s") || { echo "fairness.sh: unknown shape $s" >&2; exit 2; }
    for t in $threads; do
        load0=$(cut -d' ' -f1 /proc/loadavg)
        aw=() bw=() ac=() bc=()
        for ((r = 0; r < rounds; r++)); do
            # One pair under the lock: A then B, so both see the same machine.
            out=$({
                flock 9
                $HR run --plugin "$PLUG" --kernel onednn_sdpa $args --threads "$t" "${TIMING[@]}" --no-probe --quiet \
                    --format json --aggregates-only | hr_ms
                $DRV $args --threads "$t" "${TIMING[@]}" $huge | awk '{print "B", $3, $7}'
            } 9>"${HR_TIMING_LOCK:-/tmp/hr-timing.lock}")
            aw+=("$(printf '%s\n' "$out" | awk '$1 == "A" {print $2}')")
            ac+=("$(printf '%s\n' "$out" | awk '$1 == "A" {print $3}')")
            bw+=("$(printf '%s\n' "$out" | awk '$1 == "B" {print $2}')")
            bc+=("$(printf '%s\n' "$out" | awk '$1 == "B" {print $3}')")
        done
        load1=$(cut -d' ' -f1 /proc/loadavg)
        printf '%-4s %2s %10.2f %10.2f %7.3f %10.2f %10.2f %7.3f  %s, %s\n' "$s" "$t" \
            "$(printf '%s\n' "${aw[@]}" | med)" "$(printf '%s\n' "${bw[@]}" | med)" "$(ratios "${aw[*]}" "${bw[*]}")" \
            "$(printf '%s\n' "${ac[@]}" | med)" "$(printf '%s\n' "${bc[@]}" | med)" "$(ratios "${ac[*]}" "${bc[*]}")" \
            "$load0" "$load1"
        echo "     wall A: ${aw[*]} | B: ${bw[*]}"
    done
done
