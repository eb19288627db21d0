#!/usr/bin/env bash
# peers/torch_sdpa/build.sh OUT_DIR — build the torch_sdpa plugin against the libtorch that
# setup.sh extracted (build/peers/torch_sdpa/sdk):
#   OUT_DIR/torch_sdpa.so                          loader.c: what headroom loads
#   OUT_DIR/torch_sdpa.libs/torch_sdpa_impl.so     torch_sdpa.cpp: the kernel, linked with
#                                                  libtorch_cpu.so and libc10.so only
# (a subdirectory, so HEADROOM_PLUGIN_PATH=OUT_DIR does not take the impl for a plugin).
# No libtorch there: one line "notice: torch_sdpa left out: WHY", exit 0. A failed
# compile: exit 1. RUNPATHs are $ORIGIN-relative, so the tree may move.
set -uo pipefail
cd "$(dirname "$0")/../.."
OUT=${1:-build/plugins}
SDK=build/peers/torch_sdpa/sdk
CXX=${CXX:-g++}
CC=${CC:-cc}
if [ ! -f "$SDK/.complete" ] || [ ! -f "$SDK/torch/lib/libtorch_cpu.so" ]; then
    echo "notice: torch_sdpa left out: libtorch not fetched (make peers-setup; needs pip and PyPI)"
    exit 0
fi
for c in "$CXX" "$CC"; do
    command -v "$c" >/dev/null || { echo "notice: torch_sdpa left out: no compiler $c"; exit 0; }
done
mkdir -p "$OUT/torch_sdpa.libs" || exit 1
so=$OUT/torch_sdpa.so
impl=$OUT/torch_sdpa.libs/torch_sdpa_impl.so
here=peers/torch_sdpa
# newer OUT SRC...: OUT exists and is newer than every SRC.
newer() {
    local o=$1 s
    shift
    [ -f "$o" ] || return 1
    for s in "$@"; do [ "$o" -nt "$s" ] || return 1; done
}
deps=(include/headroom/plugin.h "$0" "$SDK/.complete")
if newer "$impl" "$here/torch_sdpa.cpp" "${deps[@]}" && newer "$so" "$here/loader.c" "${deps[@]}"; then
    echo "built $so (up to date)"
    exit 0
fi
rel=$(realpath --relative-to="$OUT/torch_sdpa.libs" "$SDK/torch/lib") || exit 1
# libtorch's headers need C++20; they are -isystem, the plugin's own code is -Wall clean.
$CXX -std=c++20 -O2 -fPIC -shared -Wall -Werror -fvisibility=hidden \
    -I include -isystem "$SDK/torch/include" "$here/torch_sdpa.cpp" -o "$impl.tmp" \
    -L "$SDK/torch/lib" -Wl,--no-as-needed -ltorch_cpu -lc10 -Wl,--as-needed \
    -Wl,-rpath,"\$ORIGIN/$rel" -Wl,--no-undefined || { rm -f "$impl.tmp"; exit 1; }
$CC -std=c11 -O2 -fPIC -shared -Wall -Wextra -Werror -fvisibility=hidden -I include "$here/loader.c" \
    -o "$so.tmp" -ldl -Wl,--no-undefined || { rm -f "$impl.tmp" "$so.tmp"; exit 1; }
mv -f "$impl.tmp" "$impl" && mv -f "$so.tmp" "$so" || exit 1
echo "built $so (libtorch $(cat "$SDK/.complete"))"
