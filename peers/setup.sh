#!/usr/bin/env bash
# peers/setup.sh — `make peers-setup`: fetch each peer's dependency from PyPI (or Debian)
# into build/peers/<name>/ (nothing outside build/ is touched). A peer whose download
# fails prints one line "notice: <name>: ..." and the others go on; exit 0 unless
# --strict is given (then any failure is exit 1).
set -uo pipefail
cd "$(dirname "$0")/.."
strict=0
[ "${1:-}" = --strict ] && strict=1
rc=0
for s in peers/*/setup.sh; do
    [ -f "$s" ] || continue
    bash "$s" || { echo "notice: $(basename "$(dirname "$s")"): set-up failed" >&2; rc=1; }
done
[ $strict = 1 ] && exit $rc
exit 0
