#!/usr/bin/env bash
# sh_tune.sh — headroom tune and wisdom from the command line: tune writes wisdom that the
# next run uses (tune_source "wisdom"), flags override it, foreign entries are ignored
# with a note, corrupt files and bad input exit 2 naming the file or flag.
SUITE=tune
source "$(dirname "$0")/lib.sh"
W=$TMP/wisdom.json
SHAPE=(--kernel simd --heads 2 --seq 64 --d-head 32)
FAST=(--budget 2 --min-time 0.002 --rounds 3)
RUNQ=(--reps 2 --min-time 0.001 --warmup 0)

expect help            0 'usage: headroom tune --kernel NAME' -- $B tune --help
expect tune-tiny       0 'simd +B1 H2/2 N64x64 d32 +bq=[0-9]+ bkv=[0-9]+ T1 +bq=[0-9]+ bkv=[0-9]+ T1 .*x' \
                          -- $B tune "${SHAPE[@]}" "${FAST[@]}" --wisdom $W
if [ -s "$W" ] && grep -q '"class":.*"simd/full/d32/g1/nq64/nkv64/bh2"' "$W"; then ok wisdom-written
else fail wisdom-written "no simd entry in $W"; fi
expect run-uses-wisdom 0 '"tune_source":[[:space:]]*"wisdom"' -- $B run "${SHAPE[@]}" "${RUNQ[@]}" --wisdom $W --format json
# Same class (N 50 rounds up to 64), other exact shape: still wisdom.
expect run-same-class  0 ',wisdom,'                         -- $B run --kernel simd --heads 2 --seq 50 --d-head 32 "${RUNQ[@]}" --wisdom $W --format csv
expect run-env-wisdom  0 ',wisdom,'                         -- env HEADROOM_WISDOM=$W $B run "${SHAPE[@]}" "${RUNQ[@]}" --format csv
expect run-flag-wins   0 ',1,7,[0-9]+,flag\+wisdom,'        -- $B run "${SHAPE[@]}" "${RUNQ[@]}" --wisdom $W --block-q 7 --format csv
expect run-no-wisdom   0 ',default,'                        -- $B run "${SHAPE[@]}" "${RUNQ[@]}" --wisdom $W --no-wisdom --format csv
expect run-other-class 0 ',default,'                        -- $B run --kernel simd --heads 2 --seq 65 --d-head 32 "${RUNQ[@]}" --wisdom $W --format csv

# An entry from another build is ignored with a one-line note.
sed 's/"build_id":[^,]*/"build_id": "0123456789abcdef"/' $W > $TMP/foreign.json
expect foreign-note    0 'note: .*foreign.json: ignoring 1 wisdom entry from another machine or build' \
                          -- $B run "${SHAPE[@]}" "${RUNQ[@]}" --wisdom $TMP/foreign.json --format csv
expect foreign-unused  0 ',default,'                        -- $B run "${SHAPE[@]}" "${RUNQ[@]}" --wisdom $TMP/foreign.json --format csv

printf '{"format": "headroom-wisdom-1", "entries": [' > $TMP/corrupt.json
expect corrupt-run     2 'headroom run: .*corrupt.json: corrupt wisdom file' -- $B run "${SHAPE[@]}" --wisdom $TMP/corrupt.json
expect corrupt-tune    2 'headroom tune: .*corrupt.json: corrupt wisdom file' -- $B tune "${SHAPE[@]}" "${FAST[@]}" --wisdom $TMP/corrupt.json

# --verbose shows every candidate checked before it is timed; --dry-run writes nothing.
expect verbose-checks  0 'check +bq=.*pass'                 -- $B tune "${SHAPE[@]}" "${FAST[@]}" --dry-run --verbose --wisdom $TMP/none.json
if [ -e $TMP/none.json ]; then fail dry-run "wrote $TMP/none.json"; else ok dry-run; fi
expect bandit          0 'simd +B1 H2/2 N64x64 d32'         -- $B tune "${SHAPE[@]}" "${FAST[@]}" --strategy bandit --dry-run
expect csv             0 '^kernel,batch,.*speedup'          -- $B tune "${SHAPE[@]}" "${FAST[@]}" --dry-run --format csv

cat > $TMP/shapes.ini <<'INI'
# a sweep config: two shapes (seq is a list); kernels/threads are not used by tune
[sweep]
kernels = all
heads = 2
d_head = 16
seq = 32, 48
INI
expect config          0 'N48x48 d16'                        -- $B tune --kernel simd --config $TMP/shapes.ini --budget 1 --min-time 0.002 --rounds 3 --dry-run
printf '[sweep]\nheads = 2\nwidth = 3\n' > $TMP/badkey.ini
expect config-bad-key  2 "headroom tune: .*badkey.ini:3: .*width" -- $B tune --kernel simd --config $TMP/badkey.ini
expect no-tunables     2 'naive declares no tunable parameters' -- $B tune --kernel naive --budget 1
expect even-rounds     2 '\-\-rounds: must be odd'          -- $B tune "${SHAPE[@]}" --rounds 4
expect bad-shape       2 '\-\-kv-heads: 3 does not divide'  -- $B tune --kernel simd --heads 4 --kv-heads 3
expect no-kernel       2 '\-\-kernel: required'             -- $B tune
finish
