#!/usr/bin/env bash
# hyperfine-compare.sh — whole-process comparison of two builds of headroom with hyperfine:
# two git revisions, two compilers, or two flag sets, each built into its own directory
# (make BUILDDIR=...), running the same `headroom run ...` command.
#
#   scripts/hyperfine-compare.sh [options] [-- HEADROOM_ARGS...]
#     --a SPEC, --b SPEC   a build: comma list of KEY=VALUE make variables, and optionally
#                          rev=GITREV (built from a `git worktree` of that revision), e.g.
#                          --a 'CC=gcc,OPTIMIZATION=-O2' --b 'CC=clang,OPTIMIZATION=-O3'
#                          --a rev=HEAD~1 --b rev=HEAD          (default: -O2 vs -O3)
#     --runs N (10)  --warmup N (2)  --out DIR (results/hyperfine/<stamp>)
#   HEADROOM_ARGS default: run --kernel flash --seq 1024 --heads 8 --reps 3 --min-time 0.02
# Writes DIR/hyperfine.json (--export-json) and DIR/hyperfine.md (--export-markdown).
# Whole-process time includes start-up and input generation: use it to compare builds,
# and headroom's own timings (sweep, compare) for kernel time.
set -euo pipefail
cd "$(dirname "$0")/.."
command -v hyperfine >/dev/null || { echo "hyperfine-compare.sh: hyperfine is not installed" >&2; exit 2; }
a='OPTIMIZATION=-O2' b='OPTIMIZATION=-O3' runs=10 warmup=2 out=""
while [ $# -gt 0 ]; do
    case $1 in
    --a) a=$2; shift 2 ;;
    --b) b=$2; shift 2 ;;
    --runs) runs=$2; shift 2 ;;
    --warmup) warmup=$2; shift 2 ;;
    --out) out=$2; shift 2 ;;
    --) shift; break ;;
    -h|--help) sed -n '2,17p' "$0"; exit 0 ;;
    *) echo "hyperfine-compare.sh: unknown option '$1' (see --help)" >&2; exit 2 ;;
    esac
done
args=("$@")
[ ${#args[@]} -gt 0 ] || args=(run --kernel flash --seq 1024 --heads 8 --reps 3 --min-time 0.02)
out=${out:-${HEADROOM_RESULTS:-results}/hyperfine/$(date +%Y%m%d-%H%M%S)}
mkdir -p "$out"
root=$(pwd)

# build LABEL SPEC: prints the path of the binary it built.
build() {
    local label=$1 spec=$2 src=$root rev="" vars=()
    IFS=',' read -r -a items <<< "$spec"
    for it in "${items[@]}"; do
        case $it in
        rev=*) rev=${it#rev=} ;;
        *=*) vars+=("$it") ;;
        "") ;;
        *) echo "hyperfine-compare.sh: '$it' is not KEY=VALUE" >&2; exit 2 ;;
        esac
    done
    local dir=$root/build/hyperfine/$label
    if [ -n "$rev" ]; then
        src=$root/build/hyperfine/src-$label
        rm -rf "$src"
        git worktree remove --force "$src" 2>/dev/null || true
        git worktree add --detach "$src" "$rev" >&2
    fi
    make -C "$src" -j2 BUILDDIR="$dir" "${vars[@]}" "$dir/headroom" >&2
    echo "$dir/headroom"
}
bin_a=$(build a "$a")
bin_b=$(build b "$b")
q() { printf '%q ' "$@"; }
hyperfine --warmup "$warmup" --runs "$runs" \
    --export-json "$out/hyperfine.json" --export-markdown "$out/hyperfine.md" \
    -n "a: $a" "$(q "$bin_a" "${args[@]}")" \
    -n "b: $b" "$(q "$bin_b" "${args[@]}")"
echo "hyperfine-compare.sh: $out/hyperfine.json, $out/hyperfine.md"
