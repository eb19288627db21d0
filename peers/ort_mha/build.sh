#!/usr/bin/env bash
# peers/ort_mha/build.sh OUT_DIR — build the ort_mha plugin against the interpreter that
# setup.sh installed onnxruntime for (build/peers/ort_mha/site, site/.python):
#   OUT_DIR/ort_mha.so                   ort_mha.c: what headroom loads, linked with libpython
#   OUT_DIR/ort_mha.libs/ort_mha.py      the Python half it imports
# (a subdirectory, as torch_sdpa's, so HEADROOM_PLUGIN_PATH=OUT_DIR sees one plugin).
# No site (setup not run), no shared libpython or no Python headers: one line
# "notice: ort_mha left out: WHY", exit 0. A failed compile: exit 1.
set -uo pipefail
cd "$(dirname "$0")/../.."
OUT=${1:-build/plugins}
SITE=build/peers/ort_mha/site
CC=${CC:-cc}
here=peers/ort_mha
left_out() { echo "notice: ort_mha left out: $*"; exit 0; }
[ -f "$SITE/.complete" ] && [ -f "$SITE/.python" ] || left_out "onnxruntime not installed (make peers-setup; needs pip and PyPI)"
PY=$(cat "$SITE/.python")
[ -x "$PY" ] || left_out "the interpreter $PY that setup.sh used is gone (make peers-setup again)"
command -v "$CC" >/dev/null || left_out "no compiler $CC"
# INCLUDEPY, LIBDIR, LDLIBRARY (libpythonX.Y.so), INSTSONAME (its soname), shared or not.
read -r inc libdir ldlib soname shared < <("$PY" -c 'import sysconfig as s; v = s.get_config_var
print(s.get_paths()["include"], v("LIBDIR"), v("LDLIBRARY"), v("INSTSONAME"), v("Py_ENABLE_SHARED"))')
[ "$shared" = 1 ] || left_out "$PY has no shared libpython (Py_ENABLE_SHARED=0): nothing to embed"
[ -f "$inc/Python.h" ] || left_out "no Python.h in $inc (apt-get install python3-dev)"
[ -f "$libdir/$ldlib" ] || left_out "no $libdir/$ldlib (apt-get install python3-dev)"
mkdir -p "$OUT/ort_mha.libs" || exit 1
so=$OUT/ort_mha.so
site_rel=$(realpath --relative-to="$OUT" "$SITE") || exit 1
ver=$(cut -d' ' -f1 "$SITE/.complete")
lib=${ldlib#lib}
lib=${lib%.so}
cp -f "$here/ort_mha.py" "$OUT/ort_mha.libs/ort_mha.py" || exit 1
if [ -f "$so" ] && [ "$so" -nt "$here/ort_mha.c" ] && [ "$so" -nt "$0" ] && [ "$so" -nt include/headroom/plugin.h ] &&
    [ "$so" -nt "$SITE/.complete" ]; then
    echo "built $so (up to date)"
    exit 0
fi
$CC -std=c11 -O2 -fPIC -shared -Wall -Wextra -Werror -fvisibility=hidden -I include -isystem "$inc" \
    -DORT_VERSION="\"$ver\"" -DORT_PYTHON="\"$PY\"" -DORT_SITE_REL="\"$site_rel\"" -DORT_LIBPYTHON="\"$soname\"" \
    "$here/ort_mha.c" -o "$so.tmp" -L "$libdir" -l"$lib" -ldl -Wl,-rpath,"$libdir" -Wl,--no-undefined ||
    { rm -f "$so.tmp"; exit 1; }
mv -f "$so.tmp" "$so" || exit 1
echo "built $so (onnxruntime $ver, embedding $PY)"
