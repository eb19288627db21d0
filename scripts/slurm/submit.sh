#!/usr/bin/env bash
# submit.sh — submit one sharded headroom sweep on one Slurm partition: the ceilings first
# (prepare.sbatch: build if asked, headroom roofline), the shards as a job array
# (shard.sbatch, --array=0-(N-1), after the ceilings), the merge as a dependent job
# (merge.sbatch, --dependency=afterok:ARRAY). Prints the run directory and the job ids;
# the last line is "merge JOBID" (compare-partitions.sh reads it).
#
# usage: scripts/slurm/submit.sh CONFIG --shards N [--partition P] [--run DIR]
#            [--bin PATH | --build] [--no-roofline] [--roofline-args 'FLAGS']
#            [--shared] [--time T] [--sbatch 'FLAGS'] [-- SWEEP_FLAGS...]
#   --shards N        the array size: N shards, one task each (1..4096)
#   --partition P     the partition (node type) to run on (Slurm's default partition)
#   --run DIR         where shards, logs and the merge go (results/slurm/<stamp>-<config>[-P])
#   --bin PATH        the headroom binary (./headroom); must run on P's nodes
#   --build           build a -march=native binary on P's node type first:
#                     make NATIVE=1 BUILDDIR=build/slurm-P (else the portable ./headroom)
#   --no-roofline     keep the ceilings the node type already has
#   --roofline-args   flags for headroom roofline ('' : every thread count, saved for the sweep)
#   --shared          do not ask for whole nodes (--exclusive is the default: timings
#                     shared with other jobs are not measurements)
#   --time T          time limit of each job (Slurm's default)
#   --sbatch FLAGS    more sbatch flags for every job (--account, --qos, --constraint ...)
#   SWEEP_FLAGS       passed to every shard's headroom sweep (--reps, --filter, --no-probe ...)
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
die() { echo "submit.sh: $*" >&2; exit 2; }

config="" shards="" partition="" run="" bin="" build=0 roofline=1 roofline_args="" exclusive=1 time="" extra=""
while [ $# -gt 0 ]; do
    case "$1" in
    --shards) shards=${2:-}; shift 2 ;;
    --partition) partition=${2:-}; shift 2 ;;
    --run) run=${2:-}; shift 2 ;;
    --bin) bin=${2:-}; shift 2 ;;
    --build) build=1; shift ;;
    --no-roofline) roofline=0; shift ;;
    --roofline-args) roofline_args=${2:-}; shift 2 ;;
    --shared) exclusive=0; shift ;;
    --time) time=${2:-}; shift 2 ;;
    --sbatch) extra=${2:-}; shift 2 ;;
    --) shift; break ;;
    -h | --help) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
    -*) die "unknown option '$1'" ;;
    *) [ -z "$config" ] || die "one CONFIG only ('$config' and '$1')"; config=$1; shift ;;
    esac
done
sweep_args="$*"
[ -n "$config" ] || die "CONFIG: required (e.g. configs/default.ini)"
[ -f "$config" ] || die "$config: no such config"
case "$shards" in '' | *[!0-9]* | 0*) die "--shards: expected a count 1..4096, got '$shards'" ;; esac
[ "$shards" -le 4096 ] || die "--shards: at most 4096"
[ "$build" = 1 ] && [ -n "$bin" ] && die "--build: not with --bin (the build goes to build/slurm-PARTITION)"
command -v sbatch > /dev/null || die "sbatch: not found (run this on a Slurm login node)"

config=$(cd "$(dirname "$config")" && pwd)/$(basename "$config")
name=$(basename "$config" .ini)
if [ "$build" = 1 ]; then
    bin=$root/build/slurm-${partition:-default}/headroom
else
    bin=${bin:-$root/headroom}
    case "$bin" in /*) ;; *) bin=$(pwd)/$bin ;; esac
    [ -x "$bin" ] || die "--bin: $bin is not an executable (make, or --build)"
fi
run=${run:-$root/results/slurm/$(date +%Y%m%d-%H%M%S)-$name${partition:+-$partition}}
case "$run" in /*) ;; *) run=$(pwd)/$run ;; esac
[ -e "$run/run.env" ] && die "--run: $run already holds a run (give a new directory)"
mkdir -p "$run/logs"

# The jobs read their settings from RUN/run.env (no commas or quoting through --export).
{
    printf 'HR_ROOT=%q\nHR_RUN=%q\nHR_BIN=%q\nHR_CONFIG=%q\n' "$root" "$run" "$bin" "$config"
    printf 'HR_BUILD=%q\nHR_ROOFLINE=%q\nHR_ROOFLINE_ARGS=%q\nHR_SWEEP_ARGS=%q\n' \
        "$build" "$roofline" "$roofline_args" "$sweep_args"
} > "$run/run.env"

common=(--parsable --chdir "$root")
[ -n "$partition" ] && common+=(--partition "$partition")
[ "$exclusive" = 1 ] && common+=(--exclusive)
[ -n "$time" ] && common+=(--time "$time")
# shellcheck disable=SC2206 # --sbatch is a list of flags
[ -n "$extra" ] && common+=($extra)

prep=$(sbatch "${common[@]}" --output "$run/logs/prepare-%j.out" "$here/prepare.sbatch" "$run")
prep=${prep%%;*}
array=$(sbatch "${common[@]}" --array "0-$((shards - 1))" --dependency "afterok:$prep" \
    --output "$run/logs/shard-%A_%a.out" "$here/shard.sbatch" "$run")
array=${array%%;*}
merge=$(sbatch "${common[@]}" --dependency "afterok:$array" --output "$run/logs/merge-%j.out" \
    "$here/merge.sbatch" "$run")
merge=${merge%%;*}
printf 'prepare %s\narray %s\nmerge %s\n' "$prep" "$array" "$merge" > "$run/jobs"
echo "run $run"
echo "prepare $prep"
echo "array $array (${shards} shards of $name)"
echo "merge $merge"
