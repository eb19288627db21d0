#!/usr/bin/env bash
# sh_threads.sh — "all CPUs" is the CPUs this process may run on (affinity mask, a
# cgroup's cpuset and CPU quota); more threads than those warn and are recorded; the
# ceilings are bounded the same way; each libgomp complaint about OMP_* is printed once.
SUITE=threads
source "$(dirname "$0")/lib.sh"

RUN="run --kernel flash --heads 2 --d-head 16 --seq 32 --reps 2 --min-time 0 --warmup 0 --no-wisdom"
# ctx KEY...: the context's KEY values of the results JSON on stdin, space separated.
ctx() { python3 -c 'import json,sys; c=json.load(sys.stdin)["context"]; print(" ".join(str(c.get(k)) for k in sys.argv[1:]))' "$@"; }
export -f ctx

if ! command -v taskset >/dev/null 2>&1; then
    skip taskset "no taskset here"
else
    expect taskset-default-1 0 '^1 1 affinity 0$' -- bash -c "taskset -c 0 $B $RUN --format json 2>/dev/null | ctx omp_max_threads cpus_allowed cpus_allowed_by cpu_set"
    expect taskset-rows-1 0 '^\[1\]$' -- bash -c "taskset -c 0 $B $RUN --format json 2>/dev/null | python3 -c 'import json,sys; print(sorted({b[\"threads\"] for b in json.load(sys.stdin)[\"benchmarks\"]}))'"
    # Two threads on one allowed CPU: one line on stderr, the context says so.
    expect taskset-over-warns 0 '^1$' -- bash -c "taskset -c 0 $B $RUN --threads 2 --format json 2>&1 >/dev/null | grep -c '^headroom run: warning: .*2 threads on 1 allowed CPUs (affinity): oversubscribed$'"
    expect taskset-over-context 0 '^True 2 1$' -- bash -c "taskset -c 0 $B $RUN --threads 2 --format json 2>/dev/null | ctx oversubscribed max_threads cpus_allowed"
    expect taskset-within-quiet 0 '^False$' -- bash -c "taskset -c 0 $B $RUN --threads 1 --format json 2>/dev/null | ctx oversubscribed"
    # The ceilings: the default thread counts are 1..allowed, more are refused, and the
    # file records the set they were measured on.
    expect roofline-default 0 '^\[1\] 0$' -- bash -c "taskset -c 0 $B roofline --quick --format json 2>/dev/null | python3 -c 'import json,sys; d=json.load(sys.stdin); print([r[\"threads\"] for r in d[\"ceilings\"]], d[\"context\"][\"cpu_set\"])'"
    expect roofline-over 2 '^headroom roofline: --threads: 2 threads on 1 allowed CPUs \(affinity\) would measure shared cores' -- taskset -c 0 $B roofline --quick --threads 2
    mkdir -p "$TMP/roof"
    expect roofline-set-saved 0 '^0 1$' -- bash -c "taskset -c 0 $B roofline --quick --out $TMP/roof/ceilings.json >/dev/null 2>&1; python3 -c 'import json; c=json.load(open(\"$TMP/roof/ceilings.json\"))[\"context\"]; print(c[\"cpu_set\"], c[\"cpus_allowed\"])'"
fi

# A cgroup's quota and cpuset, through a fake cgroup directory (HEADROOM_CGROUP).
mkdir -p "$TMP/cg2" "$TMP/cg1" "$TMP/cgset" "$TMP/cgmax"
echo "50000 100000" > "$TMP/cg2/cpu.max"
echo 50000 > "$TMP/cg1/cpu.cfs_quota_us"
echo 100000 > "$TMP/cg1/cpu.cfs_period_us"
echo 0 > "$TMP/cgset/cpuset.cpus.effective"
echo "max 100000" > "$TMP/cgmax/cpu.max"
expect cgroup-v2-quota 0 '^1 1 cpu quota 0.5$' -- bash -c "HEADROOM_CGROUP=$TMP/cg2 $B $RUN --format json 2>/dev/null | ctx omp_max_threads cpus_allowed cpus_allowed_by cpu_quota"
expect cgroup-v1-quota 0 '^1 1 cpu quota 0.5$' -- bash -c "HEADROOM_CGROUP=$TMP/cg1 $B $RUN --format json 2>/dev/null | ctx omp_max_threads cpus_allowed cpus_allowed_by cpu_quota"
expect cgroup-cpuset 0 '^1 1 cpuset$' -- bash -c "HEADROOM_CGROUP=$TMP/cgset $B $RUN --format json 2>/dev/null | ctx omp_max_threads cpus_allowed cpus_allowed_by"
expect cgroup-quota-over 0 'warning: .*2 threads on 1 allowed CPUs \(cpu quota\): oversubscribed' -- env HEADROOM_CGROUP=$TMP/cg2 $B $RUN --threads 2
ncpu=$(getconf _NPROCESSORS_ONLN)
expect cgroup-no-quota 0 "^None $ncpu\$" -- bash -c "HEADROOM_CGROUP=$TMP/cgmax taskset -c 0-$((ncpu - 1)) $B $RUN --format json 2>/dev/null | ctx cpu_quota cpus_allowed"
# OMP_NUM_THREADS is the user's word: kept over the allowed CPUs, with the warning.
expect omp-env-kept 0 '^2 True$' -- bash -c "HEADROOM_CGROUP=$TMP/cg2 OMP_NUM_THREADS=2 $B $RUN --format json 2>/dev/null | ctx max_threads oversubscribed"

# libgomp reads OMP_* in every image that loads it (headroom execs itself once to pin,
# and ab starts workers): its complaint reaches the user once.
for v in OMP_SCHEDULE=bogus OMP_PROC_BIND=bogus OMP_DYNAMIC=maybe; do
    expect "libgomp-once-${v%%=*}" 0 '^1$' -- bash -c "env $v $B list 2>&1 >/dev/null | grep -c '^libgomp: '"
done
expect libgomp-once-display 0 '^1$' -- bash -c "OMP_DISPLAY_ENV=true $B list 2>&1 >/dev/null | grep -c 'OPENMP DISPLAY ENVIRONMENT BEGIN'"
expect libgomp-display-runs 0 "OMP_PROC_BIND = 'CLOSE'" -- bash -c "OMP_DISPLAY_ENV=true $B list 2>&1 >/dev/null"
expect libgomp-once-pinned 0 '^1$' -- bash -c "OMP_PROC_BIND=close OMP_PLACES=cores OMP_SCHEDULE=bogus $B list 2>&1 >/dev/null | grep -c '^libgomp: '"
printf '[sweep]\nkernels = flash\nheads = 2\nd_head = 16\nseq = 32\nthreads = 1\nmin_time = 0.001\nwarmup = 0\n' > "$TMP/tiny.ini"
expect libgomp-once-ab 0 '^1$' -- bash -c "OMP_SCHEDULE=bogus $B ab $B $B $TMP/tiny.ini --reps 2 2>&1 >/dev/null | grep -c '^libgomp: '"
# headroom's own refusal comes first: one line, and libgomp never speaks.
expect omp-threads-garbage 2 "^headroom: OMP_NUM_THREADS='abc': expected a positive thread count or an OpenMP list like 4,2$" -- env OMP_NUM_THREADS=abc $B list
# A warning after the constructors still reaches stderr (it was given back).
expect stderr-back 0 'warning: .*oversubscribed' -- env OMP_SCHEDULE=bogus HEADROOM_CGROUP=$TMP/cg2 $B $RUN --threads 2
finish
