#!/usr/bin/env bash
# build.sh — one of studies/cputime/'s tools built against a native build's objects
# (make NATIVE=1: build/native/), for the timing scripts (flash-bf16-cputime.sh,
# decode-i8-phases.sh). Run from the repository root.
# usage: studies/cputime/build.sh SRC OUT [gcc flags ...]   (-O2 unless the flags say)
set -eu
src=$1 out=$2
shift 2
objs=$(find build/native/kernels -name '*.o'; ls build/native/harness/base/*.o build/native/harness/measure/*.o \
          build/native/harness/formats/*.o build/native/harness/analyses/*.o)
pkgs="libcjson"
pkg-config --exists openblas && pkgs="$pkgs openblas"
gcc -O2 "$@" -std=c11 -D_GNU_SOURCE -fopenmp $(find kernels -type d -printf '-I%p ') -Iharness/base -Iharness/measure -Ibuild/native \
    $(pkg-config --cflags $pkgs) "$src" $objs -o "$out" $(pkg-config --libs $pkgs) -lm
