# sh_kit.sh — scripts/kit.sh's run on a lent machine: its settings refused with one line,
# a stage that does not fit in KIT_BUDGET skipped with a line saying so, and DIR tarred
# into $OUT whatever ran (no stage here runs the kit's binaries, so no kit build needed).
SUITE=kit
. "$(dirname "$0")/lib.sh"
K=scripts/kit.sh

expect usage 2 '^usage: scripts/kit.sh build \| run \[DIR\]' -- bash $K
expect bad_stage 2 '^kit: KIT_STAGES: unknown stage bogus' -- env KIT_STAGES="tests bogus" bash $K run "$TMP/a"
expect bad_budget 2 '^kit: KIT_PASSES and KIT_BUDGET are whole numbers' -- env KIT_BUDGET=5m bash $K run "$TMP/a"
expect bad_passes 2 '^kit: KIT_PASSES and KIT_BUDGET are whole numbers' -- env KIT_PASSES=-1 bash $K run "$TMP/a"
mkdir -p "$TMP/out"
expect budget_skips 0 '^kit: roofline skipped: [0-9]+ s of KIT_BUDGET=1 left, it takes ~30' -- \
    env KIT_STAGES=roofline KIT_BUDGET=1 OUT="$TMP/out" bash $K run "$TMP/kd"
if tar tzf "$TMP/out/kit.tgz" 2>/dev/null | grep -q '^kd/skipped.txt$' && grep -q 'roofline skipped' "$TMP/kd/skipped.txt"; then
    ok packed
else
    fail packed "no kd/skipped.txt in $TMP/out/kit.tgz"
fi
finish
