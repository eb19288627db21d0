#!/usr/bin/env bash
# sh_setup.sh — scripts/setup-deps.sh, the one package list (make bench/test, .ci/run):
# quick when nothing is missing, apt-get as root or through sudo, one line naming the
# packages when neither can install, HEADROOM_NO_SETUP=1; run against fake dpkg-query,
# apt-get, id and sudo, so nothing is installed.
SUITE=setup
source "$(dirname "$0")/lib.sh"
S=scripts/setup-deps.sh

expect list 0 'libcjson-dev' -- bash $S --list
expect list-ci-fuzz 0 'libclang-rt-dev' -- bash $S --ci --list
expect bad-option 2 "unknown option '--bogus'" -- bash $S --bogus
expect ci-uses-script 0 'setup-deps.sh --ci' -- cat .ci/run
expect ci-no-own-list 1 '' -- grep -q 'apt-get install' .ci/run

F=$TMP/bin
mkdir -p "$F"
cat > "$F/dpkg-query" <<'X'
#!/bin/sh
sed 's/$/ installed/' "$FAKE_INSTALLED"
X
cat > "$F/apt-get" <<'X'
#!/bin/sh
echo "apt-get $*" >> "$FAKE_LOG"
exit "${FAKE_APT_RC:-0}"
X
cat > "$F/id" <<'X'
#!/bin/sh
echo "${FAKE_UID:-0}"
X
cat > "$F/fakesudo" <<'X'
#!/bin/sh
echo "sudo $*" >> "$FAKE_LOG"
[ "$1" = -n ] && shift
exec "$@"
X
chmod +x "$F"/*
bash $S --list | cut -d'|' -f1 > "$TMP/all"
grep -v '^libcjson-dev$' "$TMP/all" > "$TMP/some"
# run INSTALLED-FILE [VAR=VALUE...] [OPTION...]: setup-deps with the fakes first on PATH.
run() {
    local inst=$1 envs=() args=()
    shift
    for a in "$@"; do
        case $a in *=*) envs+=("$a") ;; *) args+=("$a") ;; esac
    done
    : > "$TMP/log"
    env -u HEADROOM_NO_SETUP PATH="$F:$PATH" FAKE_INSTALLED="$inst" FAKE_LOG="$TMP/log" "${envs[@]}" bash $S "${args[@]}"
}
export -f run
export S F TMP

expect nothing-missing 0 '^rc=0 out=\[\]$' -- bash -c 'out=$(run "$TMP/all" FAKE_UID=1000 HR_SETUP_SUDO=nosuchsudo 2>&1); echo "rc=$? out=[$out]"'
expect nothing-missing-no-apt 0 '^0 0$' -- bash -c 'run "$TMP/all" FAKE_UID=0 >/dev/null 2>&1; echo $? $(wc -l < "$TMP/log")'
sed 's/^gnuplot-nox$/gnuplot-qt/' "$TMP/all" > "$TMP/alt"
expect alternative-satisfies 0 '^0 0$' -- bash -c 'run "$TMP/alt" FAKE_UID=0 2>&1; echo $? $(wc -l < "$TMP/log")'
expect root-installs 0 'installing 1 missing package\(s\): libcjson-dev' -- bash -c 'run "$TMP/some" FAKE_UID=0'
expect root-update-then-install 0 '^apt-get -y -qq update,apt-get -y -qq install --no-install-recommends libcjson-dev,$' \
    -- bash -c 'run "$TMP/some" FAKE_UID=0 >/dev/null 2>&1; tr "\n" , < "$TMP/log"'
expect user-sudo 0 '^sudo -n env DEBIAN_FRONTEND=noninteractive apt-get -y -qq update,apt-get' \
    -- bash -c 'run "$TMP/some" FAKE_UID=1000 HR_SETUP_SUDO="$F/fakesudo" >/dev/null 2>&1 < /dev/null; tr "\n" , < "$TMP/log"'
expect user-no-sudo 0 '^setup-deps: missing libcjson-dev: not root and no sudo; install them .*going on with what is there$' \
    -- bash -c 'run "$TMP/some" FAKE_UID=1000 HR_SETUP_SUDO=nosuchsudo'
expect user-no-sudo-one-line 0 '^1$' -- bash -c 'run "$TMP/some" FAKE_UID=1000 HR_SETUP_SUDO=nosuchsudo 2>&1 | wc -l'
expect ci-no-sudo-fails 1 'not root and no sudo' -- bash -c 'run "$TMP/some" FAKE_UID=1000 HR_SETUP_SUDO=nosuchsudo --ci 2>&1; exit ${PIPESTATUS[0]}'
expect apt-fails 0 'missing libcjson-dev: apt-get (update|install) failed' -- bash -c 'run "$TMP/some" FAKE_UID=0 FAKE_APT_RC=100'
expect no-setup 0 '^rc=0 out=\[\] log=\[\]$' -- bash -c 'out=$(run "$TMP/some" FAKE_UID=0 HEADROOM_NO_SETUP=1 2>&1); echo "rc=$? out=[$out] log=[$(cat "$TMP/log")]"'

# The Makefile runs it for the README's goals (make -n: nothing is built), not for others.
MK=(env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL -u HR_SETUP_RAN -u HEADROOM_NO_SETUP make --no-print-directory -n)
expect make-test-runs-setup 0 'setup-deps: missing libcjson-dev: not root and no sudo' -- \
    env PATH="$F:$PATH" FAKE_INSTALLED="$TMP/some" FAKE_LOG="$TMP/log" FAKE_UID=1000 HR_SETUP_SUDO=nosuchsudo "${MK[@]}" test
expect make-bench-runs-setup 0 'setup-deps: missing libcjson-dev' -- \
    env PATH="$F:$PATH" FAKE_INSTALLED="$TMP/some" FAKE_LOG="$TMP/log" FAKE_UID=1000 HR_SETUP_SUDO=nosuchsudo "${MK[@]}" bench
expect make-no-setup 1 '' -- bash -c 'env PATH="$F:$PATH" FAKE_INSTALLED="$TMP/some" FAKE_LOG="$TMP/log" FAKE_UID=1000 HR_SETUP_SUDO=nosuchsudo HEADROOM_NO_SETUP=1 env -u MAKEFLAGS -u MAKELEVEL -u HR_SETUP_RAN make --no-print-directory -n test 2>&1 | grep -q setup-deps'
expect make-all-no-setup 1 '' -- bash -c 'env PATH="$F:$PATH" FAKE_INSTALLED="$TMP/some" FAKE_LOG="$TMP/log" FAKE_UID=1000 HR_SETUP_SUDO=nosuchsudo env -u MAKEFLAGS -u MAKELEVEL -u HR_SETUP_RAN -u HEADROOM_NO_SETUP make --no-print-directory -n all 2>&1 | grep -q setup-deps'
finish
