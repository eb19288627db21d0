#!/usr/bin/env bash
# sh_ab.sh — headroom ab's contract: the worker protocol, the three formats, the output
# files, and exit 2 with one line for every way the two builds can fail it (never a hang).
# No timing is asserted: the planted slowdown is 100%, judged only by its sign.
SUITE=ab
source "$(dirname "$0")/lib.sh"
B=$(readlink -f "$HR_BIN")
cat > "$TMP/tiny.ini" <<'INI'
[sweep]
kernels = flash, naive
heads = 2
d_head = 16
seq = 32
threads = 1
min_time = 0.001
warmup = 0.001
INI
mk() { printf '#!/bin/sh\n%s\n' "$2" > "$TMP/$1"; chmod +x "$TMP/$1"; }
mk slow "HEADROOM_PLANT_DELAY=1 exec $B \"\$@\""
mk dies "exit 3"
mk hangs "exec sleep 30"
mk liar "echo '{\"ab_protocol\": 99, \"points\": []}'; exec sleep 30"
mk notjson "echo hello; exec sleep 30"
printf '[sweep]\nkernels = flash\nheads = 2\nd_head = 16\nseq = 64\nthreads = 1\nmin_time = 0.001\n' > "$TMP/other.ini"
mk otherpts "a=\$1; shift; shift; exec $B \$a $TMP/other.ini \"\$@\""
# ab's exit status is a verdict (1: a regression), so a build against itself exits 0 or
# 1 by chance; `either` maps 1 to 0 and passes every other status through.
mk either '"$@"; rc=$?; [ $rc = 1 ] && exit 0; exit $rc'

expect help 0 'usage: headroom ab BASE_BINARY NEW_BINARY CONFIG' -- $B ab --help
# A worker gets every CPU headroom started with, not the one its parent's pinned initial
# thread has (a worker's 2-thread points once ran on one CPU at 1-thread speed).
mk affinity "grep Cpus_allowed_list /proc/self/status > $TMP/aff; exec $B \"\$@\""
want=$(grep Cpus_allowed_list /proc/self/status | tr -s ' \t' ' ')
expect worker-cpus 0 "^${want}\$" -- sh -c "$B ab $B $TMP/affinity $TMP/tiny.ini --reps 2 >/dev/null 2>&1; tr -s ' \t' ' ' < $TMP/aff"
expect hidden 0 '' -- sh -c "$B --help | grep -vq ab-worker"
expect worker-hello 0 '"ab_protocol":1,"build_id":"[0-9a-f]+".*"name":"flash/B1/H2/G2/N32/M32/d16/full/bhnd/T1"' \
    -- sh -c "echo quit | $B ab-worker $TMP/tiny.ini"
expect worker-protocol 0 '\{"ok":true,"iters":[0-9]+\}.*\{"t":[0-9.e-]+\}.*"result":\{' \
    -- sh -c "printf 'open 0\nrep 0 0\nclose 0\nquit\n' | $B ab-worker $TMP/tiny.ini --reps 1 | tr '\n' ' '"
expect worker-order 0 '"error":"command out of order' -- sh -c "printf 'rep 0 0\nquit\n' | $B ab-worker $TMP/tiny.ini"
expect worker-bad-k 0 '"error":"bad command' -- sh -c "printf 'open 99\nquit\n' | $B ab-worker $TMP/tiny.ini"
expect same-table 0 'headroom ab \(interleaved, builds [0-9a-f]+ -> [0-9a-f]+, 12 rounds of fresh workers\).*paired two-sided Wilcoxon signed-rank over the rounds' \
    -- sh -c "$B ab $B $B $TMP/tiny.ini --reps 2 2>/dev/null | tr '\n' ' '"
expect one-round 0 'headroom ab \(interleaved, builds [0-9a-f]+ -> [0-9a-f]+\).*paired two-sided Wilcoxon signed-rank, .* 4/4 ' \
    -- sh -c "$B ab $B $B $TMP/tiny.ini --rounds 1 --reps 4 2>/dev/null | tr '\n' ' '"
expect same-markdown 0 '^### :(white_check_mark|x): headroom ab' -- $TMP/either $B ab $B $B "$TMP/tiny.ini" --reps 4 --format markdown
expect out-files 0 '' -- $TMP/either $B ab $B $B "$TMP/tiny.ini" --reps 4 --format json --out "$TMP/ab"
expect out-readable 0 'result: ' -- $B compare "$TMP/ab/base.json" "$TMP/ab/new.json" --threshold 1000
expect planted-sign 0 '^positive 2 ' -- sh -c "$B ab $B $TMP/slow $TMP/tiny.ini --reps 4 --format json | \
    python3 -c 'import json,sys; d=json.load(sys.stdin); r=d[\"rows\"]; print(\"positive\" if all(x[\"delta_pct\"] > 0 for x in r) else \"not\", len(r), [round(x[\"delta_pct\"]) for x in r])'"
# --rounds: the workers are started afresh every round (the order alternating), every
# round's repetitions land in the results, and the test is over the rounds.
mk counted "echo x >> $TMP/starts; exec $B \"\$@\""
expect rounds-title 0 'headroom ab \(interleaved, builds [0-9a-f]+ -> [0-9a-f]+, 3 rounds of fresh workers\).*over the rounds. median log ratios.*3/3' \
    -- sh -c "$B ab $B $B $TMP/tiny.ini --reps 2 --rounds 3 2>/dev/null | tr '\n' ' '"
expect rounds-starts 0 '^6$' -- sh -c "rm -f $TMP/starts; $B ab $TMP/counted $TMP/counted $TMP/tiny.ini --reps 2 --rounds 3 >/dev/null 2>&1; wc -l < $TMP/starts"
expect rounds-reps 0 '^12 12$' -- sh -c "$TMP/either $B ab $B $B $TMP/tiny.ini --reps 2 --rounds 3 --out $TMP/abr >/dev/null 2>&1 && \
    python3 -c 'import json; c=[sum(1 for b in json.load(open(\"$TMP/abr/\"+s+\".json\"))[\"benchmarks\"] if b.get(\"run_type\")==\"iteration\") for s in (\"base\",\"new\")]; print(*c)'"
expect rounds-planted 0 '^positive 2 ' -- sh -c "$B ab $B $TMP/slow $TMP/tiny.ini --reps 2 --rounds 3 --format json 2>/dev/null | \
    python3 -c 'import json,sys; d=json.load(sys.stdin); r=d[\"rows\"]; print(\"positive\" if all(x[\"delta_pct\"] > 0 for x in r) else \"not\", len(r), [x[\"n_base\"] for x in r])'"
mk diessecond "n=\$(cat $TMP/second 2>/dev/null | wc -l); echo x >> $TMP/second; [ \$n -ge 1 ] && exit 3; exec $B \"\$@\""
expect rounds-dies-later 2 'diessecond \(new\): the worker ended \(exit status 3\)' -- sh -c "rm -f $TMP/second; $B ab $B $TMP/diessecond $TMP/tiny.ini --reps 2 --rounds 2"
mk changes "n=\$(cat $TMP/third 2>/dev/null | wc -l); echo x >> $TMP/third; a=\$1; shift; [ \$n -ge 2 ] && { shift; exec $B \$a $TMP/other.ini \"\$@\"; }; exec $B \$a \"\$@\""
expect rounds-points-change 2 'ab: the workers of round 2 expand .*tiny.ini into 1 points, round 1.s into 2' \
    -- sh -c "rm -f $TMP/third; $B ab $TMP/changes $TMP/changes $TMP/tiny.ini --reps 2 --rounds 2"
expect rounds-bad 2 'headroom ab: --rounds' -- $B ab $B $B "$TMP/tiny.ini" --rounds 0
expect rounds-too-many 2 'at most 1024 repetitions a point \(got 4 x 300\)' -- $B ab $B $B "$TMP/tiny.ini" --rounds 4 --reps 300
expect no-binary 2 '^headroom ab: .*/nope: cannot run the base binary' -- $B ab "$TMP/nope" $B "$TMP/tiny.ini"
expect worker-dies 2 'dies \(new\): the worker ended \(exit status 3\)' -- $B ab $B "$TMP/dies" "$TMP/tiny.ini"
expect worker-hangs 2 'hangs \(base\): no answer within 1 s' -- env HEADROOM_AB_TIMEOUT=1 $B ab "$TMP/hangs" $B "$TMP/tiny.ini"
expect wrong-protocol 2 'liar \(new\): speaks ab protocol 99' -- env HEADROOM_AB_TIMEOUT=5 $B ab $B "$TMP/liar" "$TMP/tiny.ini"
expect not-json 2 'notjson \(base\): not a headroom ab worker' -- env HEADROOM_AB_TIMEOUT=5 $B ab "$TMP/notjson" $B "$TMP/tiny.ini"
expect other-points 2 'different points' -- $B ab $B "$TMP/otherpts" "$TMP/tiny.ini"
expect bad-config 2 'nope.ini' -- $B ab $B $B "$TMP/nope.ini"
expect bad-args 2 'expected BASE_BINARY NEW_BINARY CONFIG' -- $B ab $B $B
expect bad-timeout 2 'HEADROOM_AB_TIMEOUT' -- env HEADROOM_AB_TIMEOUT=x $B ab $B $B "$TMP/tiny.ini"
# Read /proc directly: a fresh Debian (debootstrap minbase, the debian:12 image) has no pgrep.
expect no-leftover 0 '^0$' -- sh -c "grep -laE '$TMP/(hangs|liar|notjson)' /proc/[0-9]*/cmdline 2>/dev/null | wc -l"
finish
