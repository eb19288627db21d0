#!/usr/bin/env bash
# ci-cluster.sh — a real single-node Slurm for CI: munged, slurmctld and slurmd from
# Debian's slurm-wlm and munge, started directly (no systemd; fine in a container) with
# a slurm.conf for this machine (its hostname, nproc CPUs, RealMemory from
# /proc/meminfo, select/cons_tres, proctrack/linuxproc, task/none, no accounting, state
# and spool in a temp dir). Then submit.sh runs CONFIG as a job array of SHARDS shards
# with the ceilings first and the merge after; the merged points must be exactly those
# of the same sweep run unsharded; compare-partitions.sh over two partitions gives one
# report; the ReFrame check runs through sbatch. The daemons are stopped on exit.
#
# usage: scripts/slurm/ci-cluster.sh [--config FILE] [--shards N] [--timeout SEC] [--keep]
#   defaults: configs/ci.ini, 3 shards, 120 s for the jobs. Needs root (it installs
#   slurm-wlm and munge when missing and runs the daemons). --keep leaves the temp dir.
# Env: HR_BIN (./headroom, built by make), HR_REFRAME (the reframe command; else PATH's).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
cd "$root"
config=configs/ci.ini shards=3 limit=120 keep=0
while [ $# -gt 0 ]; do
    case "$1" in
    --config) config=$2; shift 2 ;;
    --shards) shards=$2; shift 2 ;;
    --timeout) limit=$2; shift 2 ;;
    --keep) keep=1; shift ;;
    *) echo "ci-cluster.sh: unknown option '$1'" >&2; exit 2 ;;
    esac
done
bin=${HR_BIN:-./headroom}
[ "$(id -u)" = 0 ] || { echo "ci-cluster.sh: needs root (the Slurm daemons); skipped"; exit 0; }
[ -x "$bin" ] || { echo "ci-cluster.sh: $bin: build it first (make)" >&2; exit 2; }
if ! command -v slurmctld > /dev/null || ! command -v munged > /dev/null; then
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends slurm-wlm munge > /dev/null
fi
t0=$(date +%s)

T=$(mktemp -d /tmp/hr-slurm.XXXXXX)
chmod 755 "$T"
host=$(uname -n)
host=${host%%.*}
port=$((17000 + RANDOM % 2000))
stop() {
    local rc=$? f
    set +e
    if [ "$rc" != 0 ]; then
        echo "ci-cluster.sh: FAILED (exit $rc); logs:"
        for f in "$T"/slurmctld.log "$T"/slurmd.log "$T"/run/logs/*; do
            [ -f "$f" ] && { echo "--- $f"; tail -n 15 "$f"; }
        done
    fi
    if [ -n "${SLURM_CONF:-}" ] && [ -s "$T/slurmctld.pid" ]; then # jobs still there: cancelled first
        scancel --user="$(id -un)" 2> /dev/null && sleep 1
    fi
    for f in slurmd slurmctld munged; do
        [ -s "$T/$f.pid" ] && kill "$(cat "$T/$f.pid")" 2> /dev/null
    done
    for _ in $(seq 1 50); do # up to 5 s for them to go
        local alive=0
        for f in slurmd slurmctld munged; do
            [ -s "$T/$f.pid" ] && kill -0 "$(cat "$T/$f.pid")" 2> /dev/null && alive=1
        done
        [ "$alive" = 0 ] && break
        sleep 0.1
    done
    if [ "$keep" = 1 ]; then echo "ci-cluster.sh: kept $T"; else rm -rf "$T"; fi
    exit "$rc"
}
trap stop EXIT
trap 'exit 130' INT TERM

# munge: a key of our own, a socket in the temp dir; --force because we are root.
dd if=/dev/urandom of="$T/munge.key" bs=1024 count=1 status=none
chmod 400 "$T/munge.key"
munged --force --key-file="$T/munge.key" --socket="$T/munge.sock" --pid-file="$T/munged.pid" \
    --log-file="$T/munged.log" --seed-file="$T/munge.seed"

mem=$(awk '/^MemTotal:/ {print int($2 / 1024 * 0.9)}' /proc/meminfo)
mkdir -p "$T/state" "$T/spool"
cat > "$T/slurm.conf" << EOF
ClusterName=headroom-ci
SlurmctldHost=$host(127.0.0.1)
SlurmctldPort=$port
SlurmdPort=$((port + 1))
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
AuthInfo=socket=$T/munge.sock
StateSaveLocation=$T/state
SlurmdSpoolDir=$T/spool
SlurmctldPidFile=$T/slurmctld.pid
SlurmdPidFile=$T/slurmd.pid
SlurmctldLogFile=$T/slurmctld.log
SlurmdLogFile=$T/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
SchedulerType=sched/backfill
SwitchType=switch/none
MpiDefault=none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
ReturnToService=2
MinJobAge=600
SchedulerParameters=sched_interval=1
NodeName=$host NodeAddr=127.0.0.1 CPUs=$(nproc) RealMemory=$mem State=UNKNOWN
PartitionName=ci Nodes=$host Default=YES MaxTime=INFINITE State=UP
PartitionName=ci2 Nodes=$host MaxTime=INFINITE State=UP
EOF
export SLURM_CONF=$T/slurm.conf
slurmctld -c
slurmd -N "$host"

wait_for() { # wait_for SECONDS WHAT CMD...: polls CMD until it succeeds
    local n=$(($1 * 5)) what=$2
    shift 2
    for _ in $(seq 1 "$n"); do "$@" && return 0; sleep 0.2; done
    echo "ci-cluster.sh: timed out waiting for $what" >&2
    return 1
}
wait_for 30 "node $host to be idle" bash -c "scontrol show node '$host' 2> /dev/null | grep -q 'State=IDLE'"
echo "ci-cluster.sh: Slurm $(sinfo -V | awk '{print $2}') up on $host ($(nproc) CPUs, ${mem} MiB) in $(($(date +%s) - t0)) s"

# The run: ceilings (quick, into the run directory), N shards, merge.
sweep=(--reps 2 --min-time 0 --no-probe)
out=$("$here/submit.sh" "$config" --shards "$shards" --partition ci --run "$T/run" --bin "$bin" --shared \
    --roofline-args "--quick --threads 1 --out $T/run/ceilings.json" -- "${sweep[@]}")
echo "$out" | sed 's/^/ci-cluster.sh: /'
merge=$(echo "$out" | awk '$1 == "merge" {print $2}')
state() { scontrol show job "$1" 2> /dev/null | grep -o 'JobState=[A-Z_]*' | head -n 1 | cut -d= -f2; }
done_or_stuck() {
    local s
    s=$(state "$merge")
    case "$s" in
    COMPLETED) return 0 ;;
    FAILED | CANCELLED | TIMEOUT | NODE_FAIL | OUT_OF_MEMORY | BOOT_FAIL | DEADLINE) echo "job $merge: $s" >&2; exit 1 ;;
    esac
    if scontrol show job "$merge" 2> /dev/null | grep -q 'Reason=DependencyNeverSatisfied'; then
        echo "ci-cluster.sh: a job before $merge failed (DependencyNeverSatisfied)" >&2
        exit 1
    fi
    return 1
}
wait_for "$limit" "the jobs (prepare, $shards shards, merge)" done_or_stuck
for id in $(awk '{print $2}' "$T/run/jobs"); do
    scontrol show job "$id" | grep -o 'JobState=[A-Z_]*' | sort | uniq -c | grep -qv COMPLETED \
        && { echo "ci-cluster.sh: job $id did not complete" >&2; exit 1; }
done

# The same sweep unsharded, here: the merged points must be exactly its points.
"$bin" sweep "$config" --out "$T/whole" "${sweep[@]}" 2> /dev/null
python3 - "$T/whole" "$T/run/merged" "$shards" << 'EOF'
import json, sys
w, m = (json.load(open(f"{d}/results.json")) for d in sys.argv[1:3])
names = lambda d: [b["name"] for b in d["benchmarks"] if b["run_type"] == "iteration"]
assert names(w) == names(m), ("rows differ", set(names(w)) ^ set(names(m)))
assert [s["name"] for s in w["skipped"]] == [s["name"] for s in m["skipped"]], "skipped points differ"
assert m["context"]["shards"] == int(sys.argv[3]), m["context"]
keys = lambda d: sorted(json.loads(l)["key"] for l in open(f"{d}/rows.jsonl"))
assert keys(sys.argv[1]) == keys(sys.argv[2]), "rows.jsonl keys differ"
print(f"ci-cluster.sh: merged = unsharded: {len(set(names(m)))} points measured, {len(m['skipped'])} skipped")
EOF

# The multi-partition driver: the same node in two partitions stands for two node types;
# one report over both merges (no roofline: the second stage checks the plumbing).
out=$("$here/compare-partitions.sh" "$config" --partitions ci,ci2 --shards 2 --run "$T/cmp" --bin "$bin" --shared \
    --no-roofline -- "${sweep[@]}")
echo "$out" | sed 's/^/ci-cluster.sh: /'
report=$(echo "$out" | awk '$1 == "report" {print $2}')
merge=$report
wait_for "$limit" "the two partitions' jobs and the report" done_or_stuck
[ -s "$T/cmp/report/report.md" ] || { echo "ci-cluster.sh: no $T/cmp/report/report.md" >&2; exit 1; }
echo "ci-cluster.sh: compare-partitions: $(grep -c '^|' "$T/cmp/report/report.md") table lines in report.md"

# The ReFrame check once through this Slurm (sbatch, polled with squeue), when ReFrame is
# installed ($HR_REFRAME, else reframe on PATH; .ci/run installs it from PyPI).
rfm=${HR_REFRAME:-$(command -v reframe || true)}
if [ -n "$rfm" ]; then
    "$rfm" -C scripts/reframe/settings.py --system headroom-ci:ci -c scripts/reframe/headroom_check.py -r \
        --prefix "$T/reframe" --report-file "$T/reframe/report.json" > "$T/reframe.log" 2>&1 \
        || { tail -n 30 "$T/reframe.log"; echo "ci-cluster.sh: the ReFrame check failed on Slurm" >&2; exit 1; }
    echo "ci-cluster.sh: ReFrame on Slurm: $(grep -Eo 'Ran [0-9]+/[0-9]+ test case.*' "$T/reframe.log" | head -n 1)"
else
    echo "ci-cluster.sh: ReFrame not installed: its Slurm run skipped"
fi
echo "ci-cluster.sh: passed in $(($(date +%s) - t0)) s"
