#!/usr/bin/env bash
# peers/ort_mha/setup.sh — install ONNX Runtime's Python package from PyPI (the CPU wheel
# onnxruntime==1.32.0), the onnx package (its helpers build the model) and numpy into
# build/peers/ort_mha/site/ with `pip install --target` (nothing outside build/). The wheel
# has no C API header, and no registry package has one for this release, so the plugin
# embeds the interpreter that ran this script and calls ORT through its Python API: the
# wheels are for that interpreter's version (recorded in site/.python, which build.sh
# checks). Idempotent: a stamp naming the versions makes a second run a no-op. On
# failure: one line "notice: ort_mha: ..." on stderr, exit 1 (peers/setup.sh goes on).
set -uo pipefail
. "$(dirname "$0")/../setup_lib.sh" # the root; PEER, D, note, find_pip
VER=${HR_ORT_VERSION:-1.32.0}
SITE=$D/site
STAMP=$SITE/.complete

command -v python3 >/dev/null || note "python3 is missing"
pyver=$(python3 -c 'import sys; print("%d.%d" % sys.version_info[:2])') || note "python3 does not run"
want="$VER python$pyver"
[ -f "$STAMP" ] && [ "$(cat "$STAMP")" = "$want" ] && exit 0
find_pip
rm -rf "$SITE"
mkdir -p "$SITE" || note "cannot create $SITE"
"${PIP[@]}" install --quiet --disable-pip-version-check --no-input --no-compile --only-binary=:all: \
    --target "$SITE" "onnxruntime==$VER" onnx numpy >"$D/pip.log" 2>&1 ||
    note "pip install onnxruntime==$VER onnx numpy failed: $(tail -n 1 "$D/pip.log")"
PYTHONPATH=$SITE python3 -c 'import onnxruntime, onnx, numpy' 2>"$D/import.log" ||
    note "import onnxruntime failed after install: $(tail -n 1 "$D/import.log")"
python3 -c 'import sys; print(sys.executable)' > "$SITE/.python"
echo "$want" > "$STAMP"
echo "ort_mha: onnxruntime $VER, onnx, numpy for python$pyver in $SITE ($(du -sh "$SITE" | cut -f1))"
