#!/usr/bin/env bash
# peers/torch_sdpa/setup.sh — fetch libtorch's CPU libraries and headers from the PyTorch
# wheel on PyPI into build/peers/torch_sdpa/sdk/ (no build of PyTorch, no CUDA stack).
# The wheel is a CUDA build: of its 0.5 GB zip only torch/include, libtorch_cpu.so,
# libc10.so and libgomp.so.1 are extracted, plus the two CUDA libraries libtorch_cpu.so
# names as NEEDED (libcudart, libcupti: loaded, never initialised on a CPU run) from the
# nvidia-cuda-runtime / nvidia-cuda-cupti wheels at the versions torch pins. The wheel
# layout is kept (sdk/torch/lib, sdk/nvidia/cu13/lib) so libtorch_cpu's own RPATH finds
# them. Idempotent: a stamp naming the version makes a second run a no-op. On failure:
# one line "notice: torch_sdpa: ..." on stderr, exit 1 (peers/setup.sh goes on).
set -uo pipefail
. "$(dirname "$0")/../setup_lib.sh" # the root; PEER, D, note, find_pip
VER=${HR_TORCH_VERSION:-2.15.0}
SDK=$D/sdk
STAMP=$SDK/.complete

[ -f "$STAMP" ] && [ "$(cat "$STAMP")" = "$VER" ] && exit 0
command -v python3 >/dev/null || note "python3 is missing"
# unzip WHEEL DIR PATTERN...: extract the members matching any glob (Python's zipfile: no
# unzip on a bare Debian); prints nothing, fails when a pattern matches no member.
unzip_some() {
    python3 - "$@" <<'PY'
import fnmatch, sys, zipfile
w, d, pats = sys.argv[1], sys.argv[2], sys.argv[3:]
with zipfile.ZipFile(w) as z:
    names = z.namelist()
    for p in pats:
        hit = [n for n in names if fnmatch.fnmatchcase(n, p)]
        if not hit:
            sys.exit(f"{w}: no member {p}")
        for n in hit:
            z.extract(n, d)
PY
}
# cat_member WHEEL NAME: one member to stdout.
cat_member() { python3 -c 'import sys, zipfile; sys.stdout.write(zipfile.ZipFile(sys.argv[1]).read(sys.argv[2]).decode())' "$1" "$2"; }
# Only 'pip download' is used: nothing is installed.
find_pip
rm -rf "$SDK" "$D/dl"
mkdir -p "$D/dl" "$SDK" || note "cannot create $D"
quiet=(--quiet --disable-pip-version-check --no-input)
"${PIP[@]}" download "${quiet[@]}" --no-deps --only-binary=:all: "torch==$VER" -d "$D/dl" >"$D/dl/pip.log" 2>&1 ||
    note "pip download torch==$VER failed: $(tail -n 1 "$D/dl/pip.log")"
W=$(ls "$D"/dl/torch-"$VER"-*.whl 2>/dev/null | head -n 1)
[ -n "$W" ] || note "pip gave no torch-$VER wheel"
unzip_some "$W" "$SDK" 'torch/include/*' 'torch/lib/libtorch_cpu.so' 'torch/lib/libc10.so' 'torch/lib/libgomp.so.1' \
    'torch/version.py' || note "unzip of $W failed"
# The CUDA runtime pieces libtorch_cpu.so needs to load, at the versions the wheel pins
# (Requires-Dist: cuda-toolkit[...]==X).
CT=$(cat_member "$W" "torch-$VER.dist-info/METADATA" | sed -n 's/^Requires-Dist: cuda-toolkit\[[^]]*\]==\([0-9.]*\).*/\1/p' | head -n 1)
need=$(readelf -d "$SDK/torch/lib/libtorch_cpu.so" | sed -n 's/.*NEEDED.*\[\(libcu[a-z]*\.so\.[0-9]*\)\]/\1/p')
if [ -n "$need" ]; then
    [ -n "$CT" ] || note "libtorch_cpu.so needs $need but the wheel pins no cuda-toolkit version"
    "${PIP[@]}" download "${quiet[@]}" --only-binary=:all: "cuda-toolkit[cudart,cupti]==$CT" -d "$D/dl" >"$D/dl/pip.log" 2>&1 ||
        note "pip download cuda-toolkit[cudart,cupti]==$CT failed: $(tail -n 1 "$D/dl/pip.log")"
    for lib in $need; do
        got=0
        for w in "$D"/dl/nvidia_cuda_*.whl; do
            unzip_some "$w" "$SDK" "*/lib/$lib" 2>/dev/null && got=1 && break
        done
        [ $got = 1 ] || note "$lib (needed by libtorch_cpu.so) is in none of the cuda-toolkit $CT wheels"
    done
fi
rm -rf "$D/dl" # the 0.5 GB wheel: everything needed is extracted
echo "$VER" > "$STAMP"
echo "torch_sdpa: libtorch $VER (CPU libraries and headers) in $SDK ($(du -sh "$SDK" | cut -f1))"
