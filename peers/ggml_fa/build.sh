#!/usr/bin/env bash
# peers/ggml_fa/build.sh OUT_DIR — builds OUT_DIR/ggml_fa.so: ggml (CPU backend only,
# -DGGML_NATIVE=ON, OpenMP, static and position-independent, under
# build/peers/ggml_fa/build/) linked into the plugin, whose only outside dependencies are
# libgomp (headroom's own) and libstdc++. Without the source (make peers-setup) one line
# "notice: ggml_fa left out: ..." and exit 0; a failing build is exit 1.
set -uo pipefail
cd "$(dirname "$0")/../.."
out=${1:-build/plugins}
root=$PWD
dir=$root/build/peers/ggml_fa
ggml=$dir/src/llama_cpp_python-0.3.36/vendor/llama.cpp/ggml
if [ ! -f "$ggml/CMakeLists.txt" ]; then
    echo "notice: ggml_fa left out: no ggml source under build/peers/ggml_fa (make peers-setup)"
    exit 0
fi
for tool in cmake c++; do
    command -v $tool > /dev/null || { echo "notice: ggml_fa left out: $tool not found"; exit 0; }
done
mkdir -p "$out"
jobs=$(nproc 2>/dev/null || echo 2)
if [ ! -f "$dir/build/ggml/src/libggml-cpu.a" ] || [ ! -f "$dir/build/ggml/src/libggml-base.a" ]; then
    cmake -S "$root/peers/ggml_fa/cmake" -B "$dir/build" -DGGML_SRC="$ggml" \
        -DCMAKE_BUILD_TYPE=Release -DGGML_NATIVE=ON -DGGML_OPENMP=ON -DBUILD_SHARED_LIBS=OFF \
        -DCMAKE_POSITION_INDEPENDENT_CODE=ON -DGGML_BACKEND_DL=OFF -DGGML_CPU=ON -DGGML_CCACHE=OFF \
        > "$dir/cmake.log" 2>&1 || { echo "ggml_fa: cmake failed, see $dir/cmake.log" >&2; exit 1; }
    cmake --build "$dir/build" -j "$jobs" --target ggml-cpu ggml-base > "$dir/build.log" 2>&1 ||
        { echo "ggml_fa: ggml build failed, see $dir/build.log" >&2; exit 1; }
fi
ver=$(sed -n 's/^set(GGML_VERSION_\(MAJOR\|MINOR\|PATCH\) \([0-9]*\)).*/\2/p' "$ggml/CMakeLists.txt" | paste -sd.)
tile=$(sed -n 's/^#define GGML_FA_TILE_Q *\([0-9]*\).*/\1/p' "$ggml/src/ggml-cpu/common.h")
# The plugin: C compiled with the same -march as ggml; ggml's symbols stay inside it
# (--exclude-libs); -fopenmp links the system libgomp, the one headroom uses.
cc -O2 -std=c11 -Wall -Wextra -march=native -fPIC -fopenmp -I "$root/include" -I "$ggml/include" \
    -DGGML_FA_VERSION="\"${ver:-unknown}\"" -DGGML_FA_TILE_Q="${tile:-64}" \
    -c "$root/peers/ggml_fa/ggml_fa.c" -o "$dir/ggml_fa.o" || { echo "ggml_fa: compile failed" >&2; exit 1; }
c++ -shared -fopenmp -o "$out/ggml_fa.so" "$dir/ggml_fa.o" \
    "$dir/build/ggml/src/libggml-cpu.a" "$dir/build/ggml/src/libggml-base.a" \
    -Wl,--exclude-libs,ALL -Wl,--no-undefined -lm || { echo "ggml_fa: link failed" >&2; exit 1; }
echo "built $out/ggml_fa.so (ggml ${ver:-unknown}, native, OpenMP)"
