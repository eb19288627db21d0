#!/usr/bin/env bash
# peers/onednn_sdpa/build.sh OUT_DIR — build OUT_DIR/onednn_sdpa.so (the headroom plugin) and
# build/peers/onednn_sdpa/sdpa_bench (the standalone timing driver, fairness.sh) against the
# oneDNN that setup.sh fetched, rpath'd to it. Without it: one notice line, exit 0.
set -uo pipefail
cd "$(dirname "$0")/../.."
OUT=${1:-build/plugins}
D=build/peers/onednn_sdpa
S=peers/onednn_sdpa
if [ ! -f "$D/lib/libdnnl.so.3" ] || [ ! -f "$D/include/oneapi/dnnl/dnnl_graph.hpp" ]; then
    echo "notice: onednn_sdpa left out: oneDNN not fetched (make peers-setup)"
    exit 0
fi
CXX=${CXX:-g++}
command -v "$CXX" >/dev/null 2>&1 || { echo "notice: onednn_sdpa left out: no C++ compiler ($CXX)"; exit 0; }
mkdir -p "$OUT"
LIB=$(cd "$D/lib" && pwd)
FLAGS=(-std=c++17 -O2 -fopenmp -Wall -Wextra -Werror -fPIC -I include -I "$D/include")
LINK=(-L "$LIB" -ldnnl -Wl,-rpath,"$LIB")
set -e
"$CXX" "${FLAGS[@]}" -shared -fvisibility=hidden "$S/plugin.cpp" "$S/sdpa_graph.cpp" -o "$OUT/onednn_sdpa.so" "${LINK[@]}"
"$CXX" "${FLAGS[@]}" "$S/bench.cpp" "$S/sdpa_graph.cpp" -o "$D/sdpa_bench" "${LINK[@]}"
echo "built $OUT/onednn_sdpa.so and $D/sdpa_bench (onednn-cpu-gomp $(cat "$D/VERSION" 2>/dev/null))"
