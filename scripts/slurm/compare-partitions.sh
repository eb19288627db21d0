#!/usr/bin/env bash
# compare-partitions.sh — the same sweep on several partitions (one per node type), each
# sharded as submit.sh does (built and its ceilings measured on that node type), then one
# hardware-comparison headroom report over the merged results (report.sbatch, after every
# merge: --dependency=afterok:M1:M2...).
#
# usage: scripts/slurm/compare-partitions.sh CONFIG --partitions P1,P2[,...] --shards N
#            [--run DIR] [--bin PATH] [submit.sh flags] [-- SWEEP_FLAGS...]
#   One binary runs on every partition: the portable ./headroom (make) picks each node
#   type's best ISA level at start and records it per row; submit.sh --build instead
#   builds a -march=native binary per node type (make NATIVE=1). The report lands in RUN/report
#   (report.md, report.csv, charts); RUN/<partition>/merged holds each node type's results.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
die() { echo "compare-partitions.sh: $*" >&2; exit 2; }

parts="" run="" bin="" pass=() sweep=()
while [ $# -gt 0 ]; do
    case "$1" in
    --partitions) parts=${2:-}; shift 2 ;;
    --run) run=${2:-}; shift 2 ;;
    --bin) bin=${2:-}; shift 2 ;;
    --partition | --build) die "$1: give --partitions (each partition is built on its own nodes)" ;;
    -h | --help) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
    --) shift; sweep=("$@"); break ;;
    *) pass+=("$1"); shift ;;
    esac
done
[ -n "$parts" ] || die "--partitions: required (P1,P2,...)"
IFS=, read -r -a plist <<< "$parts"
[ "${#plist[@]}" -ge 1 ] || die "--partitions: empty"
run=${run:-$root/results/slurm/$(date +%Y%m%d-%H%M%S)-compare}
case "$run" in /*) ;; *) run=$(pwd)/$run ;; esac
mkdir -p "$run/logs"

merges=() dirs=() report_bin=""
for p in "${plist[@]}"; do
    [ -n "$p" ] || die "--partitions: an empty name in '$parts'"
    how=(--build)
    [ -n "$bin" ] && how=(--bin "$bin")
    out=$("$here/submit.sh" "${pass[@]}" --partition "$p" --run "$run/$p" "${how[@]}" -- "${sweep[@]}") || exit $?
    echo "$out" | sed "s/^/$p: /"
    merges+=("$(echo "$out" | awk '$1 == "merge" {print $2}')")
    dirs+=("$run/$p/merged")
    [ -n "$report_bin" ] || report_bin=$(. "$run/$p/run.env" && echo "$HR_BIN")
done
printf 'HR_ROOT=%q\nHR_BIN=%q\n' "$root" "$report_bin" > "$run/report.env"
dep=$(IFS=:; echo "${merges[*]}")
report=$(sbatch --parsable --chdir "$root" --partition "${plist[0]}" --dependency "afterok:$dep" \
    --output "$run/logs/report-%j.out" "$here/report.sbatch" "$run" "${dirs[@]}")
echo "report ${report%%;*} -> $run/report/report.md"
