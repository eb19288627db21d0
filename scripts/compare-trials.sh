#!/usr/bin/env bash
# compare-trials.sh — how often does `headroom compare` get a whole sweep right? Runs N pairs
# of sweeps of one config per set and judges each pair with every metric and compare
# variant, then prints how often each exits 0 (pass), 1 (regression), 3 (cannot separate
# machine from code) or anything else.
#
# usage: scripts/compare-trials.sh [options] [N]
#   N                    pairs per set (default 20)
#   --config FILE        the sweep config (default configs/ci.ini)
#   --reps R             repetitions per point (default 9)       } the docs/how-to/ci-gate.md recipe
#   --min-time S         seconds per repetition (default 0.02)    }
#   --sets LIST          comma-separated, in this order (default aa,planted):
#                          aa       two identical sweeps: every failure is a false alarm
#                          planted  a plain sweep against one with HEADROOM_PLANT_DELAY:
#                                   every pass is a missed slowdown
#                          busy     two identical sweeps, each with a CPU-heavy competitor
#                                   (--competitors busy shell loops) running for half of
#                                   its duration, from a random point in its first half
#   --competitors K      busy loops of the busy set (default: the number of CPUs, as a
#                        parallel build would; 1 leaves a 1-thread sweep a core of its own)
#   --plant F            the planted slowdown (default 0.10 = 10%)
#   --metrics LIST       compare --metric values (default time,normalized)
#   --variants LIST      comma-separated NAME=FLAGS compare variants (flags separated by
#                        spaces), default "default=,old=--correction none --no-shift":
#                        the current gate and the pre-correction one
#   --keep DIR           keep every results file, compare report and log under DIR
#                        (default: a temporary directory, removed at the end)
#   --seed S             seed of the competitor's random start (default: from the clock)
#   --sweep-limit S      seconds one sweep may take before it is killed (default 600)
#   --bin PATH           the headroom binary (default $HR_BIN or ./headroom)
#   -- FLAGS...          further flags for every `headroom sweep`
#
# Output: one line per pair (set, index, per metric/variant: exit status, regressions and
# improvements, the shift's status and size), then the counts per set, metric and variant.
# Replaces the earlier single-shape version (`compare-trials.sh [N] [run flags]`, one
# `headroom run` of flash per trial): the trials now run the config CI runs.
set -u
cd "$(dirname "$0")/.."

N=20 CONFIG=configs/ci.ini REPS=9 MIN_TIME=0.02 SETS=aa,planted PLANT=0.10
METRICS=time,normalized VARIANTS="default=,old=--correction none --no-shift"
KEEP="" SEED="" SWEEP_LIMIT=600 BIN=${HR_BIN:-./headroom} COMPETITORS=$(nproc 2>/dev/null || echo 2)
EXTRA=()
die() { echo "compare-trials.sh: $*" >&2; exit 2; }
while [ $# -gt 0 ]; do
    case $1 in
    --config) CONFIG=${2:?}; shift 2 ;;
    --reps) REPS=${2:?}; shift 2 ;;
    --min-time) MIN_TIME=${2:?}; shift 2 ;;
    --sets) SETS=${2:?}; shift 2 ;;
    --plant) PLANT=${2:?}; shift 2 ;;
    --competitors) COMPETITORS=${2:?}; shift 2 ;;
    --metrics) METRICS=${2:?}; shift 2 ;;
    --variants) VARIANTS=${2?}; shift 2 ;;
    --keep) KEEP=${2:?}; shift 2 ;;
    --seed) SEED=${2:?}; shift 2 ;;
    --sweep-limit) SWEEP_LIMIT=${2:?}; shift 2 ;;
    --bin) BIN=${2:?}; shift 2 ;;
    --) shift; EXTRA=("$@"); break ;;
    -h|--help) sed -n '2,/^set -u/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
    -*) die "unknown option $1 (see --help)" ;;
    *) N=$1; shift ;;
    esac
done
case $N in ''|*[!0-9]*) die "N must be a whole number, got '$N'" ;; esac
[ "$N" -ge 1 ] && [ "$N" -le 1000 ] || die "N must be 1..1000, got $N"
case $COMPETITORS in ''|*[!0-9]*) die "--competitors must be a whole number" ;; esac
[ "$COMPETITORS" -ge 1 ] && [ "$COMPETITORS" -le 256 ] || die "--competitors must be 1..256"
[ -x "$BIN" ] || die "$BIN: not an executable (build it with make, or pass --bin)"
[ -r "$CONFIG" ] || die "$CONFIG: cannot read the config"
for s in ${SETS//,/ }; do
    case $s in aa|planted|busy) ;; *) die "--sets: unknown set '$s' (aa, planted, busy)" ;; esac
done
[ -n "$SEED" ] && RANDOM=$SEED

if [ -n "$KEEP" ]; then
    mkdir -p "$KEEP" || die "$KEEP: cannot create"
    DIR=$KEEP
else
    DIR=$(mktemp -d) || die "cannot create a temporary directory"
fi

# The sweep in flight and the competitors still running: killed (TERM, which timeout
# passes on) on any exit, interrupt or termination. Both run in the background, where a
# script's children ignore SIGINT, and the script waits for them with `wait`, which a
# trapped signal interrupts at once.
PIDS=() SWEEP_PID=""
cleanup() {
    [ -n "$SWEEP_PID" ] && kill "$SWEEP_PID" 2>/dev/null
    for p in "${PIDS[@]}"; do kill "$p" 2>/dev/null; done
    for p in $SWEEP_PID "${PIDS[@]}"; do wait "$p" 2>/dev/null; done
    PIDS=() SWEEP_PID=""
    [ -z "$KEEP" ] && rm -rf "$DIR"
}
trap cleanup EXIT
trap 'echo "compare-trials.sh: interrupted" >&2; exit 130' INT TERM

# sweep OUT [ENV=VALUE]: one sweep of the config into OUT; its wall time in $DIR/last.s.
sweep() {
    local out=$1 t0 t1
    shift
    t0=$(date +%s.%N)
    env "$@" timeout "$SWEEP_LIMIT" "$BIN" sweep "$CONFIG" --reps "$REPS" --min-time "$MIN_TIME" \
        --out "$out" "${EXTRA[@]}" >"$out.log" 2>&1 &
    SWEEP_PID=$!
    wait "$SWEEP_PID"
    local st=$?
    SWEEP_PID=""
    t1=$(date +%s.%N)
    awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.3f\n", b - a }' >"$DIR/last.s"
    [ $st = 0 ] && [ -s "$out/results.json" ] ||
        { echo "compare-trials.sh: sweep into $out failed (status $st, log $out.log)" >&2; return 1; }
}

# Competitors for half of a sweep lasting about $1 seconds: $COMPETITORS busy shell loops
# from one random point in the first half. Bounded twice: timeout ends each, cleanup
# kills them.
compete() {
    local dur=$1 half off k
    half=$(awk -v d="$dur" 'BEGIN { printf "%.3f", d / 2 }')
    off=$(awk -v h="$half" -v r=$((RANDOM % 1000)) 'BEGIN { printf "%.3f", h * r / 1000 }')
    for k in $(seq 1 "$COMPETITORS"); do
        timeout "$(awk -v o="$off" -v h="$half" 'BEGIN { printf "%.3f", o + h + 5 }')" \
            bash -c "sleep $off; exec timeout $half bash -c 'while :; do :; done'" &
        PIDS+=($!)
    done
}

# Waits for the competitors and forgets them.
settle() {
    for p in "${PIDS[@]}"; do wait "$p" 2>/dev/null; done
    PIDS=()
}

# judge BASE NEW TAG: every metric x variant; appends "metric/variant status" words to
# $DIR/judged and a short description to the pair's log line.
judge() {
    local base=$1 new=$2 tag=$3 m v name flags st brief
    for m in ${METRICS//,/ }; do
        IFS=, read -ra vs <<<"$VARIANTS"
        for v in "${vs[@]}"; do
            name=${v%%=*}
            flags=${v#*=}
            # shellcheck disable=SC2086 # flags are words
            "$BIN" compare "$base" "$new" --metric "$m" $flags --format json \
                >"$DIR/$tag.$m.$name.json" 2>/dev/null
            st=$?
            brief=$(python3 -c '
import json, sys
try:
    j = json.load(open(sys.argv[1]))
    s = j["shift"]
    print("R%d I%d %s %+.1f%%" % (j["counts"]["regression"], j["counts"]["improvement"],
          s["status"], s["common_pct"] if s["common_pct"] is not None else 0))
except Exception:
    print("no report")' "$DIR/$tag.$m.$name.json")
            echo "$SET $m $name $st" >>"$DIR/judged"
            LINE="$LINE  $m/$name $st ($brief)"
        done
    done
}

: >"$DIR/judged"
echo "compare-trials: $N pairs per set ($SETS), $CONFIG --reps $REPS --min-time $MIN_TIME," \
    "metrics $METRICS, variants: $VARIANTS; busy: $COMPETITORS competitor(s); files in $DIR"
DUR=""
for SET in ${SETS//,/ }; do
    for i in $(seq 1 "$N"); do
        tag=$SET$i
        if [ "$SET" = busy ]; then
            if [ -z "$DUR" ]; then # how long one sweep takes, for the competitor's half
                sweep "$DIR/calibrate" || exit 1
                DUR=$(cat "$DIR/last.s")
            fi
            compete "$DUR"
            sweep "$DIR/$tag.base" || exit 1
            settle
            compete "$DUR"
            sweep "$DIR/$tag.new" || exit 1
            settle
        else
            sweep "$DIR/$tag.base" || exit 1
            DUR=$(cat "$DIR/last.s")
            if [ "$SET" = planted ]; then
                sweep "$DIR/$tag.new" HEADROOM_PLANT_DELAY="$PLANT" || exit 1
            else
                sweep "$DIR/$tag.new" || exit 1
            fi
        fi
        LINE="$SET $i:"
        judge "$DIR/$tag.base/results.json" "$DIR/$tag.new/results.json" "$tag"
        echo "$LINE"
    done
done

echo
echo "exit status counts per set (0 pass, 1 regression, 3 cannot separate, other):"
printf '%-8s %-11s %-10s %6s %6s %6s %6s\n' set metric variant 0 1 3 other
awk '{ k = $1 " " $2 " " $3; if (!(k in seen)) { seen[k] = 1; order[++n] = k }
       c[k, ($4 == 0 || $4 == 1 || $4 == 3) ? $4 : "x"]++ }
     END { for (i = 1; i <= n; i++) { split(order[i], f, " ");
             printf "%-8s %-11s %-10s %6d %6d %6d %6d\n", f[1], f[2], f[3],
                    c[order[i], 0], c[order[i], 1], c[order[i], 3], c[order[i], "x"] } }' \
    "$DIR/judged"
