#!/usr/bin/env bash
# peers/ggml_fa/setup.sh — fetches ggml's source for the ggml_fa plugin: the sdist of
# llama-cpp-python (PyPI) holds llama.cpp, and vendor/llama.cpp/ggml is the library.
# Only ggml/ (and tests/, for fairness.sh) is unpacked, under build/peers/ggml_fa/src/.
# Idempotent: quick when already there. On failure one line "notice: ggml_fa: ..." and
# exit 1 (peers/setup.sh goes on with the other peers).
set -uo pipefail
cd "$(dirname "$0")/../.."
VER=0.3.36
dir=build/peers/ggml_fa
pkg=llama_cpp_python-$VER
src=$dir/src/$pkg/vendor/llama.cpp
[ -f "$src/ggml/CMakeLists.txt" ] && [ -f "$src/tests/test-backend-ops.cpp" ] && exit 0
mkdir -p "$dir/src"
note() { echo "notice: ggml_fa: $*" >&2; exit 1; }
if [ ! -f "$dir/$pkg.tar.gz" ]; then
    # --no-binary :all: gives the sdist; pip prepares its metadata (a few seconds of
    # build dependencies), nothing is built or installed.
    python3 -m pip download "llama-cpp-python==$VER" --no-deps --no-binary :all: -d "$dir" -q \
        > "$dir/pip.log" 2>&1 || note "pip download llama-cpp-python==$VER failed ($(tail -n 1 "$dir/pip.log"))"
fi
tar -xzf "$dir/$pkg.tar.gz" -C "$dir/src" "$pkg/vendor/llama.cpp/ggml" "$pkg/vendor/llama.cpp/tests" \
    2> "$dir/tar.log" || note "cannot unpack $dir/$pkg.tar.gz ($(tail -n 1 "$dir/tar.log"))"
echo "ggml_fa: ggml source of llama-cpp-python $VER in $src/ggml"
