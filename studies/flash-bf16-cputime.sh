#!/usr/bin/env bash
# flash-bf16-cputime.sh — flash fp32 against flash bf16 on three prefill shapes, timed by
# process CPU time per call (studies/cputime/calls.c), for a machine shared with other jobs
# where wall-clock medians are noise. Per pass, shape and thread count: fp32 then bf16,
# 7 calls each, right after the roofs by the same clock on as many threads
# (studies/cputime/roof.c), so that each share of the vdpbf16ps roof compares figures from
# the same seconds and the same number of busy cores (a roof taken once per
# pass moved by several percent between passes: perf-log 0225). 2 threads run with
# OMP_WAIT_POLICY=passive so that a thread spinning while its partner is descheduled is not
# counted. Ends with a summary: per shape and thread count, each pass's bf16/fp32 (medians)
# and bf16's median per core as % of the roof taken just before it.
# Take the lock other timers use: flock /tmp/hr-timing.lock studies/flash-bf16-cputime.sh [PASSES]
# Needs a native build (make NATIVE=1: build/native/); writes the tools under build/cputime/.
set -eu
cd "$(dirname "$0")/.."
passes=${1:-3}
out=build/cputime
mkdir -p "$out"
studies/cputime/build.sh studies/cputime/calls.c "$out/calls"
gcc -O3 -fopenmp studies/cputime/roof.c -o "$out/roof"
log="$out/flash-bf16.log"
: > "$log"
for pass in $(seq 1 "$passes"); do
    for shape in "16 64 0" "16 64 1" "32 128 1"; do
        for T in 1 2; do
            echo "pass$pass $("$out/roof" $T)" | tee -a "$log"
            for dt in f32 bf16; do
                echo "pass$pass $(OMP_WAIT_POLICY=passive "$out/calls" flash $shape $dt $T 7)" | tee -a "$log"
            done
        done
    done
done
echo
echo "summary (per pass: bf16/fp32 by medians per core; bf16 as % of the vdpbf16ps roof taken just before, T threads):"
awk '
/vdpbf16ps .* GFLOP\/s, fp32 FMA/ { for (i = 1; i <= NF; i++) if ($i == "vdpbf16ps") roof = $(i + 1) }
/ flash / {
    key = $3 " " $4 " " $5 " " $7; for (i = 1; i <= NF; i++) if ($i == "median") { med = $(i + 1); break }
    if ($6 == "f32") f32[$1, key] = med
    else { r = sprintf("%.2fx %.1f%%", med / f32[$1, key], 100 * med / roof); row[key] = row[key] "  " $1 " " r
           if (!(key in seen)) { seen[key] = 1; order[++n] = key } }
}
END { for (i = 1; i <= n; i++) printf "  %-26s%s\n", order[i], row[order[i]] }' "$log"
