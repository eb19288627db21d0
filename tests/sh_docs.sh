#!/usr/bin/env bash
# sh_docs.sh — the generated reference is current: docs/reference/cli.md and docs/headroom.1
# are what `make docs` writes from the option tables (scripts/gen-docs.py), a stale one
# fails with one line naming it and the fix; every HEADROOM_* name of the sources is in
# docs/reference/environment.md; and each check catches a planted change.
SUITE=docs
source "$(dirname "$0")/lib.sh"
GEN=scripts/gen-docs.py

expect current 0 '' -- python3 $GEN --bin "$HR_BIN" --check

# The tables as JSON: every listed command of `headroom --help` is there, each reached
# hr_parse once (else help --reference exits 2), and the options --help prints are the
# table's.
"$HR_BIN" help --reference > "$TMP/tables.json" 2> "$TMP/tables.err"
rc=$?
if [ $rc -ne 0 ] || ! python3 -c 'import json,sys; json.load(open(sys.argv[1]))' "$TMP/tables.json" 2>/dev/null; then
    fail tables-json "help --reference: exit $rc, $(head -c 200 "$TMP/tables.err")"
else
    ok tables-json
fi
listed=$("$HR_BIN" --help | sed -n 's/^  \([a-z][a-z-]*\)  .*/\1/p' | sort)
dumped=$(python3 -c 'import json,sys
for c in json.load(open(sys.argv[1]))["commands"]:
    c.get("hidden") or print(c["name"])' "$TMP/tables.json" | sort)
if [ -n "$listed" ] && [ "$listed" = "$dumped" ]; then ok every-command
else fail every-command "--help lists [$(echo $listed)], the reference [$(echo $dumped)]"; fi
bad=""
for c in $dumped; do
    want=$(python3 -c 'import json,sys
def walk(o):
    for x in o:
        yield from walk(x["options"]) if "group" in x else [x["name"]]
for c in json.load(open(sys.argv[1]))["commands"]:
    if c["name"] == sys.argv[2]: print("\n".join(sorted(walk(c["options"]))))' "$TMP/tables.json" "$c")
    got=$("$HR_BIN" "$c" --help 2>/dev/null | sed -n 's/^  \(--[a-z0-9-]*\).*/\1/p' | grep -vx -- --help | sort)
    [ "$want" = "$got" ] || bad="$bad $c"
done
[ -z "$bad" ] && ok help-is-the-table || fail help-is-the-table "--help and the reference differ for:$bad"

# Deterministic: two runs write the same bytes.
python3 $GEN --tables "$TMP/tables.json" --out "$TMP/g1" && python3 $GEN --tables "$TMP/tables.json" --out "$TMP/g2"
if cmp -s "$TMP/g1/docs/reference/cli.md" "$TMP/g2/docs/reference/cli.md" && cmp -s "$TMP/g1/docs/headroom.1" "$TMP/g2/docs/headroom.1"
then ok deterministic; else fail deterministic "two runs of gen-docs.py differ"; fi
expect man-th-version 0 "^\.TH HEADROOM 1 \"$(cat VERSION)\"" -- grep '^\.TH' docs/headroom.1

# A changed option table (a new option in run's): the committed files are stale, each
# named in one line with the fix; make docs (gen-docs.py) writes the new option.
python3 - "$TMP/tables.json" "$TMP/changed.json" <<'EOF'
import json, sys
d = json.load(open(sys.argv[1]))
run = [c for c in d["commands"] if c["name"] == "run"][0]
run["options"].append({"name": "--new-knob", "kind": "int", "metavar": "K", "min": 1, "max": 8,
                       "help": "a planted option (3)"})
json.dump(d, open(sys.argv[2], "w"))
EOF
out=$(python3 $GEN --tables "$TMP/changed.json" --check 2>&1)
rc=$?
want=$'docs/reference/cli.md is stale: run make docs\ndocs/headroom.1 is stale: run make docs'
if [ $rc -eq 1 ] && [ "$out" = "$want" ]; then ok stale-table
else fail stale-table "exit $rc, output: $(printf '%s' "$out" | tr '\n' '|')"; fi
mkdir -p "$TMP/tree/docs/reference"
cp VERSION "$TMP/tree/" && cp docs/reference/headroom.1.in docs/reference/environment.md "$TMP/tree/docs/reference/"
python3 $GEN --tables "$TMP/changed.json" --root "$TMP/tree"
if grep -q -- '--new-knob' "$TMP/tree/docs/reference/cli.md" && grep -q -- '\\-\\-new\\-knob' "$TMP/tree/docs/headroom.1"
then ok regenerates; else fail regenerates "the planted option is not in the regenerated files"; fi
expect regenerated-current 0 '' -- python3 $GEN --tables "$TMP/changed.json" --root "$TMP/tree" --check

# A doctored committed file: only it is named.
sed -i 's/batch size/batch sizes/' "$TMP/tree/docs/reference/cli.md"
out=$(python3 $GEN --tables "$TMP/changed.json" --root "$TMP/tree" --check 2>&1)
rc=$?
if [ $rc -eq 1 ] && [ "$out" = "docs/reference/cli.md is stale: run make docs" ]; then ok stale-file
else fail stale-file "exit $rc, output: $(printf '%s' "$out" | tr '\n' '|')"; fi

# Environment: every HEADROOM_* name of the sources documented, and a planted one caught.
expect env-documented 0 '' -- python3 $GEN --check-env
mkdir -p "$TMP/tree/harness"
printf 'static const char *k(void) { return getenv("HEADROOM_NEW_KNOB"); }\n' > "$TMP/tree/harness/knob.c"
expect env-catches-missing 1 '^docs/reference/environment.md lacks HEADROOM_NEW_KNOB ' \
    -- python3 $GEN --check-env --root "$TMP/tree"
# The man page's ENVIRONMENT lists every variable environment.md has.
missing=""
for n in $(grep '^### ' docs/reference/environment.md | grep -oE '`[A-Z][A-Z0-9_]*`' | tr -d '`'); do
    grep -q "$n" docs/headroom.1 || missing="$missing $n"
done
[ -z "$missing" ] && ok man-environment || fail man-environment "not in docs/headroom.1:$missing"
finish
