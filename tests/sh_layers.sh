#!/usr/bin/env bash
# sh_layers.sh — the house rules hold (scripts/check-layers.py): rooms include only
# downwards, no include circle, no source file past ~600 lines of code, SIMD only in
# kernels/vec/, no circle of symbol references between the kernels' objects;
# and the checker itself catches each kind of violation in a throwaway tree.
SUITE=layers
source "$(dirname "$0")/lib.sh"
CHK=scripts/check-layers.py

# The symbol circles in the objects of the build under test: one level's of the portable
# build, or a fixed-level build's.
U=${HR_UNIT:-build/portable/unit_tests}
OBJ=(--objects "$(dirname "$U")/kernels")
[ -d "$(dirname "$U")/lv_avx512/kernels" ] && OBJ+=(--objects "$(dirname "$U")/lv_avx512/kernels")
expect tree-clean 0 'no upward include, no circle; no symbol circle' -- python3 $CHK "${OBJ[@]}"

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
for i in $(seq 700); do echo "static int filler$i;"; done >> "$TMP/t/harness/base/stats.c"
expect catches-long 1 'stats.c: [0-9]+ lines of code' -- python3 $CHK --root "$TMP/t"
# Comments and blank lines are not code: 700 of each leave the file within the limit.
plant
for i in $(seq 700); do printf '/* a note */\n\n'; done >> "$TMP/t/harness/base/stats.c"
printf '/*\n' >> "$TMP/t/harness/base/stats.c"
for i in $(seq 700); do echo " * a longer note, int x = 1;"; done >> "$TMP/t/harness/base/stats.c"
printf ' */\n' >> "$TMP/t/harness/base/stats.c"
expect comments-not-code 0 'no upward include, no circle' -- python3 $CHK --root "$TMP/t"
plant
printf 'static void f(void) { (void)_mm512_setzero_ps(); }\n' >> "$TMP/t/kernels/ref/naive.c"
expect catches-intrinsic 1 'naive.c:[0-9]+: SIMD intrinsic outside the vector layer' \
    -- python3 $CHK --root "$TMP/t"
# Symbol circles between object files: two objects that call each other are caught; a
# tree without objects says the check was skipped.
mkdir -p "$TMP/o"
printf 'int lower(int x);\nint upper(int x) { return lower(x) + 1; }\n' > "$TMP/o/upper.c"
printf 'int upper(int x);\nint lower(int x) { return x > 0 ? upper(x - 1) : 0; }\n' > "$TMP/o/lower.c"
printf 'int lower(int x);\nint top(int x) { return lower(x); }\n' > "$TMP/o/top.c"
for f in upper lower top; do cc -c "$TMP/o/$f.c" -o "$TMP/o/$f.o"; done
plant
expect catches-symbol-circle 1 'symbol circle: lower.o -> upper.o \(upper\); upper.o -> lower.o \(lower\)' \
    -- python3 $CHK --root "$TMP/t" --objects "$TMP/o"
rm -f "$TMP/o/upper.o"
expect no-symbol-circle 0 "no symbol circle among the objects of $TMP/o" -- python3 $CHK --root "$TMP/t" --objects "$TMP/o"
# An object whose dependency file (-MMD) names a source that is gone, left in a build
# folder from before files moved, is no part of this tree's build: no circle through it;
# one whose source exists still counts.
cc -c "$TMP/o/upper.c" -o "$TMP/o/upper.o"
printf '%s: %s\n' "$TMP/o/upper.o" "$TMP/o/gone/upper.c" > "$TMP/o/upper.d"
expect stale-object-ignored 0 "no symbol circle among the objects of $TMP/o" -- python3 $CHK --root "$TMP/t" --objects "$TMP/o"
printf '%s: \\\n %s\n' "$TMP/o/upper.o" "$TMP/o/upper.c" > "$TMP/o/upper.d"
expect object-with-source-counts 1 'symbol circle: lower.o -> upper.o \(upper\)' \
    -- python3 $CHK --root "$TMP/t" --objects "$TMP/o"
expect no-objects-skips 0 'no objects under .*symbol circles not checked' -- python3 $CHK --root "$TMP/t"
finish
