#!/usr/bin/env bash
# peers-bench.sh — make peers-bench: headroom's kernels beside every peer plugin that was
# built (build/plugins/<name>.so for each peers/<name>/), configs/peers.ini swept once,
# interleaved by repetition, into one results set; then `headroom report --peers` writes
# report.md (with the peer / headroom table) and peers.md (the table docs/how-to/peers.md
# describes: machine, headroom's version and commit, every
# library's version) into that results directory and prints peers.md.
# Usage: scripts/peers-bench.sh [HEADROOM_BINARY] [CONFIG]
# Env: HR_PEERS (space-separated plugin files, in place of the peers/<name>/ look-up),
#      HR_PEERS_DIR (where make peers put them: build/plugins), HEADROOM_RESULTS,
#      HR_PEERS_NO_ROOFLINE=1 (no ceilings measured when none are saved: no % of roof).
# No peer built: one notice, nothing measured, exit 0 (make peers-setup peers first).
set -euo pipefail
here=$PWD
abs() { case $1 in /*) echo "$1" ;; *) echo "$here/$1" ;; esac; }   # paths given are the caller's
bin=$(abs "${1:-headroom}")
config=${2:-configs/peers.ini}
[ -z "${2:-}" ] || config=$(abs "$2")
cd "$(dirname "$0")/.."
[ -n "${1:-}" ] || bin=./headroom
plugdir=${HR_PEERS_DIR:-build/plugins}

args=() missing=()
if [ -n "${HR_PEERS:-}" ]; then
    for so in $HR_PEERS; do args+=(--plugin "$(abs "$so")"); echo "peers-bench: peer $so"; done
else
    for d in peers/*/; do
        [ -d "$d" ] || continue
        name=$(basename "$d")
        if [ -f "$plugdir/$name.so" ]; then
            args+=(--plugin "$plugdir/$name.so")
            echo "peers-bench: peer $name: $plugdir/$name.so"
        else
            missing+=("$name")
            echo "peers-bench: notice: peer $name not built ($plugdir/$name.so missing: make peers-setup peers); left out"
        fi
    done
fi
if [ ${#args[@]} -eq 0 ]; then
    echo "peers-bench: notice: no peer plugin built (make peers-setup peers): nothing to compare, nothing measured"
    exit 0
fi

# The ceilings give the % of roof column; measured once per machine, as make bench does.
machine=$("$bin" run --kernel naive --heads 1 --seq 16 --d-head 16 --reps 1 --min-time 0 \
          --warmup 0 --format json 2>/dev/null | sed -n 's/.*"machine":[[:space:]]*"\([^"]*\)".*/\1/p')
root=${HEADROOM_RESULTS:-results}
if [ -n "$machine" ] && [ ! -s "$root/$machine/ceilings.json" ] && [ "${HR_PEERS_NO_ROOFLINE:-0}" != 1 ]; then
    echo "peers-bench: no ceilings for $machine: measuring them (headroom roofline)"
    "$bin" roofline
fi

# One sweep: every point (headroom's and the peers') in the same shuffled rounds.
if [ -z "$machine" ]; then
    echo "peers-bench: cannot ask $bin for the machine key" >&2
    exit 2
fi
dir=$root/$machine/$(date -u +%Y%m%d-%H%M%S)-$(basename "$config" .ini)
"$bin" sweep "$config" --quiet --out "$dir" "${args[@]}"
# The charts (kernels vs N, roofline, decode: peers titled with their library) and the
# report; a missing gnuplot is a notice from either, the tables are still written.
"$bin" plot "$dir" > /dev/null || echo "peers-bench: notice: headroom plot failed (status $?); the tables follow"
"$bin" report "$dir" --out "$dir" --peers > /dev/null
if [ ${#missing[@]} -gt 0 ]; then
    printf -- '- not built on this machine: %s (make peers-setup peers)\n' "${missing[*]}" >> "$dir/peers.md"
fi
echo "peers-bench: results, report.md and peers.md in $dir"
echo
cat "$dir/peers.md"
