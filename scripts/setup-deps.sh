#!/usr/bin/env bash
# setup-deps.sh — installs the Debian packages headroom needs that are missing: the one
# package list (make bench/test/fuzz call it before building; .ci/run calls it with --ci).
#
# usage: scripts/setup-deps.sh [--fuzz] [--ci] [--list]
#   (none)   what make bench and make test use: the build, then optional packages
#            (OpenBLAS, Google Benchmark, gnuplot, hyperfine, likwid, numpy/scipy, jsonschema,
#            Chart.js for headroom site's charts)
#   --fuzz   also what make fuzz needs (clang and its libFuzzer runtime)
#   --ci     everything .ci/run uses (also chromium: tests/sh_site.sh loads the site's pages
#            in it); a package that cannot be installed is an error (exit 1)
#   --list   print the packages (one a line) and exit
# Missing packages are found with dpkg-query; when none is missing nothing else runs (no
# apt-get update). Otherwise: apt-get update + install, as root directly, else through
# sudo; when neither is possible, one line names the packages and the build goes on with
# what is there (an optional package missing degrades with a notice from make or the
# tests; a required one fails the build). HEADROOM_NO_SETUP=1 skips all of this.
# Test hooks: HR_SETUP_SUDO (the sudo command, "sudo").
set -u

required=(build-essential pkg-config libcjson-dev)
# a|b: satisfied by any of them installed; the first is what gets installed.
optional=(libopenblas-dev libopenblas-openmp-dev libbenchmark-dev libbenchmark-tools
          "gnuplot-nox|gnuplot-qt|gnuplot-x11" hyperfine likwid
          python3 python3-numpy python3-scipy python3-venv python3-jsonschema libjs-chart.js)
fuzz=(clang libclang-rt-dev)
# --ci also brings what `make peers-setup peers` needs: cmake (ggml), pip (the PyPI downloads),
# python3-dev (libpython and Python.h, which ort_mha embeds), and the headless browser
# the site's test loads every page in (skipped without it)
ci=(git ca-certificates cmake python3-pip python3-dev chromium)

want=("${required[@]}" "${optional[@]}")
strict=0 list=0
for a in "$@"; do
    case $a in
    --fuzz) want+=("${fuzz[@]}") ;;
    --ci) want+=("${fuzz[@]}" "${ci[@]}"); strict=1 ;;
    --list) list=1 ;;
    -h|--help) sed -n '2,17p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "setup-deps: unknown option '$a' (see --help)" >&2; exit 2 ;;
    esac
done
if [ "$list" = 1 ]; then
    printf '%s\n' "${want[@]}"
    exit 0
fi
[ "${HEADROOM_NO_SETUP:-0}" = 1 ] && exit 0

if ! command -v dpkg-query >/dev/null 2>&1; then
    echo "setup-deps: not a Debian system (no dpkg-query): install the equivalents of: ${want[*]//|/ or } (HEADROOM_NO_SETUP=1 hides this)" >&2
    exit 0
fi

# The installed packages, once: "name status" lines.
installed=$(dpkg-query -W -f='${Package} ${db:Status-Status}\n' 2>/dev/null | awk '$2 == "installed" { print $1 }')
missing=()
for entry in "${want[@]}"; do
    found=0
    IFS='|' read -r -a alts <<< "$entry"
    for p in "${alts[@]}"; do
        if grep -qxF -- "$p" <<< "$installed"; then found=1; break; fi
    done
    [ "$found" = 1 ] || missing+=("${alts[0]}")
done
[ "${#missing[@]}" -eq 0 ] && exit 0

give_up() {
    echo "setup-deps: missing ${missing[*]}: $1; install them (apt-get install ${missing[*]}) or set HEADROOM_NO_SETUP=1; going on with what is there" >&2
    exit "$strict"
}
sudo_cmd=${HR_SETUP_SUDO:-sudo}
if [ "$(id -u)" -eq 0 ]; then
    as_root=()
elif command -v "$sudo_cmd" >/dev/null 2>&1; then
    as_root=("$sudo_cmd")
    # Without a terminal sudo must not wait for a password nobody can type.
    [ -t 0 ] || as_root+=(-n)
else
    give_up "not root and no sudo"
fi

echo "setup-deps: installing ${#missing[@]} missing package(s): ${missing[*]}" >&2
apt() { "${as_root[@]}" env DEBIAN_FRONTEND=noninteractive apt-get -y -qq "$@"; }
apt update >/dev/null || give_up "apt-get update failed"
if ! apt install --no-install-recommends "${missing[@]}" >/dev/null; then
    # One unavailable package fails the whole transaction: take the others one by one.
    failed=()
    for p in "${missing[@]}"; do
        apt install --no-install-recommends "$p" >/dev/null 2>&1 || failed+=("$p")
    done
    if [ "${#failed[@]}" -gt 0 ]; then
        missing=("${failed[@]}")
        give_up "apt-get install failed"
    fi
fi
echo "setup-deps: done" >&2
