#!/usr/bin/env bash
# peers/torch_sdpa/build.sh OUT_DIR — build OUT_DIR/torch_sdpa.so against the libtorch
# that setup.sh extracted (build/peers/torch_sdpa/sdk). No libtorch there: one line
# "notice: torch_sdpa left out: WHY", exit 0. A failed compile: exit 1.
# The plugin links libtorch_cpu.so and libc10.so only (no libtorch.so, which pulls
# libtorch_cuda.so); its RUNPATH is $ORIGIN-relative, so the tree may move.
set -uo pipefail
cd "$(dirname "$0")/../.."
OUT=${1:-build/plugins}
SDK=build/peers/torch_sdpa/sdk
CXX=${CXX:-g++}
if [ ! -f "$SDK/.complete" ] || [ ! -f "$SDK/torch/lib/libtorch_cpu.so" ]; then
    echo "notice: torch_sdpa left out: libtorch not fetched (make peers-setup; needs pip and PyPI)"
    exit 0
fi
command -v "$CXX" >/dev/null || { echo "notice: torch_sdpa left out: no C++ compiler ($CXX)"; exit 0; }
mkdir -p "$OUT" || exit 1
so=$OUT/torch_sdpa.so
src=peers/torch_sdpa/torch_sdpa.cpp
# Up to date: newer than its source, the ABI header, this script and the SDK stamp.
if [ -f "$so" ] && [ "$so" -nt "$src" ] && [ "$so" -nt include/headroom/plugin.h ] &&
    [ "$so" -nt "$0" ] && [ "$so" -nt "$SDK/.complete" ]; then
    echo "built $so (up to date)"
    exit 0
fi
rel=$(realpath --relative-to="$OUT" "$SDK/torch/lib") || exit 1
# libtorch's headers warn under -Wextra; the plugin's own code is kept clean of -Wall.
$CXX -std=c++20 -O2 -fPIC -shared -Wall -Werror -fvisibility=hidden \
    -I include -isystem "$SDK/torch/include" "$src" -o "$so.tmp" \
    -L "$SDK/torch/lib" -Wl,--no-as-needed -ltorch_cpu -lc10 -Wl,--as-needed \
    -Wl,-rpath,"\$ORIGIN/$rel" -Wl,--no-undefined || { rm -f "$so.tmp"; exit 1; }
mv -f "$so.tmp" "$so" || exit 1
echo "built $so (libtorch $(cat "$SDK/.complete"))"
