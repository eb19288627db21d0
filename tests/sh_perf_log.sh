#!/usr/bin/env bash
# sh_perf_log.sh — every perf-log entry has its six sections (Question, Machine, Commit,
# Command, Result, Decision) and docs/perf-log/README.md's index is what
# scripts/perf-log-index.py writes from them; the checker catches each kind of fault.
SUITE=perf_log
source "$(dirname "$0")/lib.sh"
IDX=scripts/perf-log-index.py

if ! command -v python3 >/dev/null 2>&1; then
    skip index 'no python3'
    finish
    exit
fi
expect index-fresh 0 '' -- python3 $IDX --check

# A copy of the log with one planted fault per case.
plant() {
    rm -rf "$TMP/log"
    cp -r docs/perf-log "$TMP/log"
}
first=$(ls docs/perf-log | grep -E '^[0-9]{4}-.*\.md$' | head -n 1)
plant
sed -i '/^## Decision$/,$d' "$TMP/log/$first"
expect catches-missing-section 1 "$first: no Decision section" -- python3 $IDX --check --dir "$TMP/log"
plant
printf '# 0999: a new entry\n\n## Question\n\nq\n\n## Machine\n\nm\n\n## Commit\n\nc\n\n## Command\n\nc\n\n## Result\n\nr\n\n## Decision\n\nd\n' \
    > "$TMP/log/0999-new.md"
expect catches-stale-index 1 'index is stale; run scripts/perf-log-index.py' -- python3 $IDX --check --dir "$TMP/log"
python3 $IDX --dir "$TMP/log" >/dev/null 2>&1
expect rebuilt-index-passes 0 '' -- python3 $IDX --check --dir "$TMP/log"
if grep -q '0999-new.md' "$TMP/log/README.md"; then ok rebuilt-index-lists-entry; else fail rebuilt-index-lists-entry 'no row for 0999'; fi
plant
sed -i '1s/^# [0-9]*:/# 0998:/' "$TMP/log/$first"
expect catches-wrong-number 1 "title's number 0998 is not the file's" -- python3 $IDX --check --dir "$TMP/log"
plant
printf '# 0997: bold sections\n\n**Question**: q\n\n**Machine**: m\n\n**Commit**: c\n\n**Command**: c\n\n**Result**: r\n\n**Decision**: d.\n' \
    > "$TMP/log/0997-bold.md"
python3 $IDX --dir "$TMP/log" >/dev/null 2>&1
expect bold-sections-accepted 0 '' -- python3 $IDX --check --dir "$TMP/log"
finish
