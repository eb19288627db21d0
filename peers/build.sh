#!/usr/bin/env bash
# peers/build.sh — `make peers`: build every peer plugin whose dependency is present.
# Each peers/<name>/build.sh OUT_DIR builds OUT_DIR/<name>.so and prints "built ...",
# or prints one line "notice: <name> left out: WHY" and exits 0 when its dependency
# (installed by peers/<name>/setup.sh, `make peers-setup`) is missing. A peer whose
# dependency is present but whose build fails is an error (exit 1).
set -uo pipefail
cd "$(dirname "$0")/.."
out=${1:-build/plugins}
mkdir -p "$out"
rc=0
for b in peers/*/build.sh; do
    [ -f "$b" ] || continue
    bash "$b" "$out" || { echo "peers: $(basename "$(dirname "$b")"): build failed" >&2; rc=1; }
done
exit $rc
