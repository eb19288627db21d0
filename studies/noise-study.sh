#!/usr/bin/env bash
# noise-study.sh — does normalizing by the concurrent-ceiling probe survive a throttled machine? Long run, planted slowdown, false alarms, probe overhead.
#
# usage: studies/noise-study.sh [--long] [--out DIR] [--bin PATH]
#   default (short, ~2 min): long run of 60 repetitions, 5 planted + 5 identical trials
#   --long (~5 min on an idle machine): 200 repetitions of >= 0.6 s, 10 + 10 trials
# Writes DIR/*.json (every run kept) and DIR/summary.md, and prints the summary.
#
# What it measures (docs/explanation/measurement.md explains how to read it;
# perf-log 0001, 0002):
#  1. one kernel and shape (flash H8 N1024 d64, 2 threads) for many repetitions: the CV
#     of raw time vs the CV of frac_of_ceiling, with and without the phase filter; the
#     same for the memory-bound decode kernel (normalized by the bandwidth probe);
#  2. a planted 10% slowdown (HEADROOM_PLANT_DELAY=0.10, test only: a busy-wait of 10%
#     of each call's own time inside the timed call): a baseline run then a planted run,
#     judged by headroom compare on time and on the normalized metric, TRIALS times;
#  3. false alarms: two identical runs, the same way, TRIALS times;
#  4. the probe's overhead: wall time of the same run with --probe and --no-probe,
#     interleaved, and the ratio of their medians.
set -euo pipefail

long=0
out=""
bin=./headroom
while [ $# -gt 0 ]; do
    case $1 in
    --long) long=1 ;;
    --out) out=$2; shift ;;
    --bin) bin=$2; shift ;;
    -h | --help) sed -n '2,20p' "$0"; exit 0 ;;
    *) echo "noise-study.sh: unknown argument '$1' (see --help)" >&2; exit 2 ;;
    esac
    shift
done
[ -x "$bin" ] || { echo "noise-study.sh: $bin not built (run make)" >&2; exit 2; }
command -v python3 > /dev/null || { echo "noise-study.sh: needs python3 for the statistics" >&2; exit 2; }

if [ "$long" = 1 ]; then
    LONG_REPS=200 LONG_MIN=0.6 DEC_REPS=60 TRIALS=10 TRIAL_REPS=15 TRIAL_MIN=0.1
else
    LONG_REPS=60 LONG_MIN=0.5 DEC_REPS=40 TRIALS=5 TRIAL_REPS=15 TRIAL_MIN=0.1
fi
out=${out:-${HEADROOM_RESULTS:-results}/noise-study-$(date +%Y%m%d-%H%M%S)}
mkdir -p "$out"
export HEADROOM_WISDOM=/nonexistent/wisdom.json # kernel defaults, whatever was tuned
FLASH=(--kernel flash --heads 8 --seq 1024 --d-head 64 --threads 2 --no-wisdom)
DECODE=(--kernel decode --heads 8 --seq 1 --seq-kv 65536 --d-head 64 --threads 2 --no-wisdom)
log() { echo "noise-study: $*" >&2; }

# 1. the long runs.
log "long run: flash, $LONG_REPS repetitions of >= ${LONG_MIN}s"
"$bin" run "${FLASH[@]}" --reps "$LONG_REPS" --min-time "$LONG_MIN" --format json > "$out/long-flash.json"
log "long run: decode, $DEC_REPS repetitions of >= ${LONG_MIN}s"
"$bin" run "${DECODE[@]}" --reps "$DEC_REPS" --min-time "$LONG_MIN" --format json > "$out/long-decode.json"

# 2 and 3. trials: base then new, each a separate process, judged by compare.
for t in $(seq 1 "$TRIALS"); do
    log "trial $t/$TRIALS: planted 10% slowdown and identical runs"
    run() { "$bin" run "${FLASH[@]}" --reps "$TRIAL_REPS" --min-time "$TRIAL_MIN" --format json; }
    run > "$out/plant-$t-base.json"
    HEADROOM_PLANT_DELAY=0.10 run > "$out/plant-$t-new.json"
    run > "$out/same-$t-base.json"
    run > "$out/same-$t-new.json"
    for kind in plant same; do
        for metric in time normalized; do
            "$bin" compare "$out/$kind-$t-base.json" "$out/$kind-$t-new.json" --metric "$metric" \
                --format json > "$out/cmp-$kind-$t-$metric.json" 2> /dev/null || true
        done
    done
done

# 4. probe overhead: the same short run with and without probes, interleaved.
OH_REPS=40
for i in 1 2 3; do
    for p in probe no-probe; do
        s=$(date +%s.%N)
        "$bin" run --kernel flash --heads 4 --seq 256 --threads 2 --no-wisdom --reps $OH_REPS \
            --min-time 0.01 --warmup 0 --"$p" --format json > "$out/overhead-$p-$i.json"
        e=$(date +%s.%N)
        echo "$p $i $(python3 -c "print($e - $s)")" >> "$out/overhead-wall.txt"
    done
done

python3 - "$out" "$TRIALS" "$OH_REPS" > "$out/summary.md" <<'EOF'
import json, statistics as st, sys, glob, os
d, trials, oh_reps = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
def its(path):
    b = json.load(open(path))["benchmarks"]
    return [r for r in b if r["run_type"] == "iteration"]
def cv(x): return st.stdev(x) / st.mean(x) if len(x) > 1 else 0.0
def pct(x): return f"{100 * x:.1f}%"
print("# noise study\n")
ctx = json.load(open(f"{d}/long-flash.json"))["context"]
print(f"machine {ctx['machine']} ({ctx['cpu_model']}, {ctx['num_cpus']} CPUs), load average at start "
      f"{ctx['load_avg'][0]}, build {ctx['build_id']}, {ctx['date']}\n")
print("## 1. long runs: spread of raw time vs the normalized metric\n")
print("| run | reps | probe | CV time | CV frac_of_ceiling | CV time, phase-filtered | CV frac, phase-filtered | phase changes | probe range (min..max) | corr(time, 1/probe) |")
print("|:--|--:|:--|--:|--:|--:|--:|--:|--:|--:|")
for name in ("flash", "decode"):
    r = its(f"{d}/long-{name}.json")
    t = [x["real_time"] for x in r]
    f = [x["frac_of_ceiling"] for x in r]
    kind = r[0]["probe_kind"]
    pk = "probe_gflops" if kind == "fma" else "probe_gbs"
    p = [x[pk] for x in r]
    keep = [i for i, x in enumerate(r) if not x["phase_change"]]
    tk = [t[i] for i in keep]; fk = [f[i] for i in keep]
    inv = [1 / v for v in p]
    try: corr = st.correlation(t, inv)
    except Exception: corr = float("nan")
    print(f"| {r[0]['name']} | {len(r)} | {kind} | {pct(cv(t))} | {pct(cv(f))} | {pct(cv(tk))} | {pct(cv(fk))} | "
          f"{len(r) - len(keep)} | {min(p):.4g}..{max(p):.4g} | {corr:.2f} |")
print()
print("## 2-3. planted 10% slowdown and identical runs, judged by headroom compare\n")
print("Verdicts per trial (threshold 5%, alpha 0.05); delta is the median change.\n")
print("| trials | metric | REGRESSION | noise | same | IMPROVEMENT | deltas |")
print("|:--|:--|--:|--:|--:|--:|:--|")
for kind, label in (("plant", "planted 10% slower"), ("same", "identical")):
    for metric in ("time", "normalized"):
        cnt = {"REGRESSION": 0, "noise": 0, "same": 0, "IMPROVEMENT": 0}; deltas = []
        for t in range(1, trials + 1):
            p = f"{d}/cmp-{kind}-{t}-{metric}.json"
            try: c = json.load(open(p))
            except Exception: continue
            row = c["rows"][0]
            cnt[row["verdict"]] += 1
            deltas.append(f"{row['delta_pct']:+.1f}")
        print(f"| {label} x{trials} | {metric} | {cnt['REGRESSION']} | {cnt['noise']} | {cnt['same']} | "
              f"{cnt['IMPROVEMENT']} | {' '.join(deltas)} |")
print()
print("## 4. probe overhead\n")
wall = {"probe": [], "no-probe": []}
for line in open(f"{d}/overhead-wall.txt"):
    k, _, s = line.split(); wall[k].append(float(s))
med = {}
for k in wall:
    m = []
    for f in sorted(glob.glob(f"{d}/overhead-{k}-*.json")):
        m.append(st.median([x["real_time"] for x in its(f)]))
    med[k] = m
dw = (st.median(wall["probe"]) - st.median(wall["no-probe"])) / oh_reps
ratio = st.median(a / b for a, b in zip(med["probe"], med["no-probe"]))
po = []
for f in sorted(glob.glob(f"{d}/*.json")):
    try: r = its(f)
    except Exception: continue
    po += [x["probe_overhead_s"] for x in r[:1] if "probe_overhead_s" in x]
print(f"wall time of {oh_reps} repetitions, with probes {' '.join(f'{x:.2f}' for x in wall['probe'])} s, "
      f"without {' '.join(f'{x:.2f}' for x in wall['no-probe'])} s: {dw * 1e3:.2f} ms per repetition "
      f"(two probes of 1.5 ms each side plus team start).\n")
if po:
    print(f"probe cost measured in-process (both probes of a repetition, mean per run; {len(po)} runs): "
          f"median {st.median(po) * 1e3:.2f} ms, min {min(po) * 1e3:.2f} ms, max {max(po) * 1e3:.2f} ms per repetition.\n")
print(f"kernel median with probes / without (paired by run, median of 3): {ratio:.3f}\n")
EOF
cat "$out/summary.md"
log "done: $out"
