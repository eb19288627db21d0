#!/usr/bin/env bash
# decode_paths.sh — decode's chosen path and refusals on this CPU, for every ISA level the
# binary runs, every Q and K/V type and every HEADROOM_DECODE_* value that chooses a path:
# `headroom list`'s decode rows, a checked `headroom run` per type pair (its JSON's path and
# check, the refusal on stderr, the exit status) and the quick oracle battery per K/V type.
# The snapshot depends on the CPU, so it is not a golden file: take one with the build
# before a change to how decode chooses, one after, and diff them (they must be equal).
#   bash tests/decode_paths.sh ./headroom > after.txt
#   bash tests/decode_paths.sh OLD NEW     (both snapshots; exit 1 and the diff if they differ)
# HR_FAST=1 leaves the battery out (a few seconds instead of a few minutes).
set -u
if [ $# -eq 2 ]; then
    a=$(mktemp) b=$(mktemp)
    bash "$0" "$1" >"$a" && bash "$0" "$2" >"$b"
    diff "$a" "$b" && echo "decode_paths: $(wc -l <"$a") lines identical"
    rc=$?
    rm -f "$a" "$b"
    exit $rc
fi
H=${1:?usage: decode_paths.sh HEADROOM [HEADROOM2]}
envs=("" "HEADROOM_DECODE_PATH=" "HEADROOM_DECODE_PATH=auto" "HEADROOM_DECODE_PATH=convert"
      "HEADROOM_DECODE_PATH=int8" "HEADROOM_DECODE_PATH=bf16dot" "HEADROOM_DECODE_PATH=emu"
      "HEADROOM_DECODE_PATH=bogus" "HEADROOM_DECODE_PV=fp32" "HEADROOM_DECODE_PV=bogus"
      "HEADROOM_DECODE_Q=exact" "HEADROOM_DECODE_PF=l1" "HEADROOM_DECODE_PF=l2"
      "HEADROOM_DECODE_KV=rows" "HEADROOM_DECODE_PATH=emu HEADROOM_DECODE_PV=fp32"
      "HEADROOM_DECODE_PATH=bf16dot HEADROOM_DECODE_Q=exact")
types=(f32 bf16 f16)
kvs=(f32 bf16 f16 q8_0 q4_0)
levels=$("$H" list | sed -n 's/^  \([a-z0-9]*\) *runs on this CPU.*/\1/p')
for isa in $levels; do
    for e in "${envs[@]}"; do
        echo "== isa $isa env '${e}'"
        env $e "$H" --isa "$isa" list | sed -n '/^decode /,/^[a-z]/p' | sed '$d'
        for d in 128 48; do
            for t in "${types[@]}"; do
                for kv in "${kvs[@]}"; do
                    out=$(env $e "$H" --isa "$isa" run --kernel decode --seq 1 --seq-kv 300 --heads 4 --kv-heads 2 \
                        --d-head $d --dtype $t --kv-dtype $kv --threads 2 --reps 1 --min-time 0 --warmup 0 \
                        --no-probe --no-wisdom --quiet --check --format json 2>&1)
                    rc=$?
                    echo "run d$d $t/$kv rc=$rc"
                    printf '%s\n' "$out" | grep -E '"(path|check)":|^headroom' | sort -u
                done
            done
        done
    done
    [ "${HR_FAST:-0}" = 1 ] && continue
    for kv in "${kvs[@]}"; do
        echo "== isa $isa check --quick --dtype f32 --kv-dtype $kv"
        "$H" --isa "$isa" check --quick --kernel decode --dtype f32 --kv-dtype "$kv" 2>&1 | tail -2
        echo "rc=$?"
    done
done
