#!/usr/bin/env bash
# sh_layers.sh — the house rules hold (scripts/check-layers.py): rooms include only
# downwards, no include circle, no source file past ~600 lines, SIMD only in vec.h;
# and the checker itself catches each kind of violation in a throwaway tree.
SUITE=layers
source "$(dirname "$0")/lib.sh"
CHK=scripts/check-layers.py

expect tree-clean 0 'no upward include, no circle' -- python3 $CHK

# A copy of the tree with one planted violation per case: the checker must see it.
plant() {
    rm -rf "$TMP/t"
    mkdir -p "$TMP/t"
    cp Makefile "$TMP/t/"
    for r in $(sed -n 's/^ROOMS *:= *//p' Makefile); do
        mkdir -p "$TMP/t/$r"
        (cd "$r" && find . -name '*.[ch]') | while read -r f; do
            mkdir -p "$TMP/t/$r/$(dirname "$f")" && cp "$r/$f" "$TMP/t/$r/$f"
        done
    done
}
plant
printf '#include "cli.h"\n' >> "$TMP/t/harness/base/stats.c"
expect catches-upward 1 'stats.c:[0-9]+: includes cli.h of harness/cli, a room above harness/base' \
    -- python3 $CHK --root "$TMP/t"
plant
printf '#include "sweep.h"\n' >> "$TMP/t/harness/analyses/compare.h"
printf '#include "compare.h"\n' >> "$TMP/t/harness/analyses/sweep.h"
expect catches-circle 1 'include circle: .*compare.*sweep|include circle: .*sweep.*compare' \
    -- python3 $CHK --root "$TMP/t"
plant
for i in $(seq 700); do echo "/* filler */"; done >> "$TMP/t/harness/base/stats.c"
expect catches-long 1 'stats.c: [0-9]+ lines' -- python3 $CHK --root "$TMP/t"
plant
printf 'static void f(void) { (void)_mm512_setzero_ps(); }\n' >> "$TMP/t/kernels/ref/naive.c"
expect catches-intrinsic 1 'naive.c:[0-9]+: SIMD intrinsic outside the vector layer' \
    -- python3 $CHK --root "$TMP/t"
finish
