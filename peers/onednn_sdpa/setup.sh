#!/usr/bin/env bash
# peers/onednn_sdpa/setup.sh — fetch oneDNN (library + headers) from PyPI into
# build/peers/onednn_sdpa/{lib,include}: onednn-cpu-gomp / onednn-devel-cpu-gomp 2023.2.0
# (oneDNN 3.2.0, CPU only, GNU OpenMP: it shares headroom's libgomp). README.md says why not
# the newer `onednn` 2026.x wheels. Idempotent; one "notice:" line on failure (exit 1).
set -uo pipefail
cd "$(dirname "$0")/../.."
D=build/peers/onednn_sdpa
VER=2023.2.0
[ -f "$D/lib/libdnnl.so.3" ] && [ -f "$D/include/oneapi/dnnl/dnnl_graph.hpp" ] && [ "$(cat "$D/VERSION" 2>/dev/null)" = "$VER" ] && exit 0
note() { echo "notice: onednn_sdpa: $*" >&2; exit 1; }
# The first python3 with pip: PATH's (a pyenv or venv), then Debian's (python3-pip).
PY=
for p in python3 /usr/bin/python3; do
    command -v "$p" >/dev/null 2>&1 && "$p" -m pip --version >/dev/null 2>&1 && { PY=$p; break; }
done
[ -n "$PY" ] || note "no python3 with pip (Debian: apt-get install python3-pip): oneDNN not fetched"
mkdir -p "$D/wheels"
"$PY" -m pip download --quiet --disable-pip-version-check --no-deps --only-binary=:all: -d "$D/wheels" \
    "onednn-cpu-gomp==$VER" "onednn-devel-cpu-gomp==$VER" >"$D/pip.log" 2>&1 ||
    note "pip download onednn-cpu-gomp==$VER failed ($(tail -n 1 "$D/pip.log"))"
rm -rf "$D/lib" "$D/include" "$D/x"
# A wheel stores libdnnl.so, .so.3 and .so.3.2 as three copies: keep one, the soname.
"$PY" - "$D" <<'PYEOF' || note "could not unpack the wheels"
import glob, os, shutil, sys, zipfile
d = sys.argv[1]
for whl in glob.glob(os.path.join(d, "wheels", "*.whl")):
    with zipfile.ZipFile(whl) as z:
        for n in z.namelist():
            part = n.split(".data/data/", 1)
            if len(part) != 2: continue
            rel = part[1]
            if rel.startswith("lib/") and os.path.basename(rel) != "libdnnl.so.3": continue
            if not (rel.startswith("lib/") or rel.startswith("include/") or rel.startswith("share/doc/")): continue
            out = os.path.join(d, rel)
            os.makedirs(os.path.dirname(out), exist_ok=True)
            with z.open(n) as src, open(out, "wb") as dst: shutil.copyfileobj(src, dst)
PYEOF
ln -sf libdnnl.so.3 "$D/lib/libdnnl.so"
rm -rf "$D/wheels"
[ -f "$D/lib/libdnnl.so.3" ] && [ -f "$D/include/oneapi/dnnl/dnnl_graph.hpp" ] || note "the wheels lacked libdnnl.so.3 or the headers"
echo "$VER" > "$D/VERSION"
echo "onednn_sdpa: onednn-cpu-gomp $VER (oneDNN 3.2.0) in $D"
