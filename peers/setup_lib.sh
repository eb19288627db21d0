# peers/setup_lib.sh — sourced by a peer's setup.sh first: the working folder is the
# repository's root, PEER the peer's name (its folder), D its build folder.
PEER=$(basename "$(cd "$(dirname "$0")" && pwd)")
cd "$(dirname "$0")/../.." || exit 1
D=build/peers/$PEER
# note TEXT: one line "notice: PEER: TEXT" on stderr, exit 1 (peers/setup.sh goes on).
note() { echo "notice: $PEER: $*" >&2; exit 1; }
# find_pip: PIP is the Python's own pip, else a bare venv's under $D (Debian's python3 has
# no pip; python3-venv brings ensurepip); the venv's python is the same interpreter.
find_pip() {
    PIP=(python3 -m pip)
    python3 -m pip --version >/dev/null 2>&1 && return 0
    [ -x "$D/pipvenv/bin/pip" ] || python3 -m venv "$D/pipvenv" >/dev/null 2>&1 ||
        note "no pip: python3 -m pip fails and python3 -m venv too (apt-get install python3-venv)"
    PIP=("$D/pipvenv/bin/pip")
}
