#!/usr/bin/env bash
# likwid-roofs.sh — likwid-bench's L1/L2/L3/DRAM bandwidth at headroom's working sets, recorded beside the ceilings file for comparison.
#
# usage: scripts/likwid-roofs.sh [CEILINGS]
#   CEILINGS  a ceilings file written by `headroom roofline` (default
#             results/<machine>/ceilings.json through `headroom roofline`'s own path)
# env:
#   LIKWID_BENCH  the likwid-bench binary (default likwid-bench on PATH)
#   LIKWID_SECS   -s: seconds per figure (default 1)
#
# For every thread count T of the file and every cache level it holds, runs
#   likwid-bench -t load_avx512      -w S0:<T x working_set_bytes>:T   (load)
#   likwid-bench -t stream_sp_avx512 -w S0:<T x working_set_bytes>:T   (triad, a = b*s + c)
# and for DRAM stream_sp_avx512 over the file's triad_bytes. likwid-bench's -w size is
# the whole team's, so each thread holds the same bytes as in headroom's figure. Its
# MByte/s count the bytes its kernels declare: 8 per double loaded, 12 per single-precision
# triad element (STREAM counting, as headroom's). Writes likwid-roofs.json beside the
# ceilings file ({"source": "likwid-bench", "likwid_version", "rows": [{"threads",
# "L1": {"load_gbs", "triad_gbs", "working_set_bytes"}, ..., "DRAM": {"triad_gbs"}}]})
# and prints headroom's figure, likwid-bench's and their ratio side by side.
# Transparent huge pages: headroom's buffers ask for them (madvise), likwid-bench's get
# them only when /sys/kernel/mm/transparent_hugepage/enabled is [always]; otherwise its
# L3 and DRAM figures stream 4 KiB pages and read ~20-30% lower here. The mode goes into
# the file ("thp") and a note is printed when it is not always.
# Exit 2 on a usage error or when likwid-bench is missing.
set -euo pipefail
cd "$(dirname "$0")/.."

if [ "${1:-}" = "-h" ] || [ "${1:-}" = "--help" ]; then
    sed -n '2,26p' "$0" | sed 's/^# \{0,1\}//'
    exit 0
fi
[ $# -le 1 ] || { echo "usage: scripts/likwid-roofs.sh [CEILINGS]" >&2; exit 2; }
bench=${LIKWID_BENCH:-likwid-bench}
command -v "$bench" >/dev/null || { echo "likwid-roofs: $bench not found (apt-get install likwid)" >&2; exit 2; }
ceil=${1:-}
if [ -z "$ceil" ]; then
    machine=$(./headroom --version 2>/dev/null | awk '$1 == "machine" {print $2; exit}')
    ceil=${HEADROOM_RESULTS:-results}/${machine:-unknown}/ceilings.json
fi
[ -f "$ceil" ] || { echo "likwid-roofs: $ceil: no such ceilings file ('headroom roofline' writes it)" >&2; exit 2; }

python3 - "$ceil" "$bench" "${LIKWID_SECS:-1}" <<'EOF'
import json, os, re, subprocess, sys

path, bench, secs = sys.argv[1], sys.argv[2], sys.argv[3]
c = json.load(open(path))

def run(test, size_bytes, threads):
    kb = max(1, int(size_bytes // 1024))
    cmd = [bench, "-s", secs, "-t", test, "-w", "S0:%dkB:%d" % (kb, threads)]
    out = subprocess.run(cmd, capture_output=True, text=True)
    m = re.search(r"^MByte/s:\s+([0-9.eE+]+)", out.stdout, re.M)
    if out.returncode or not m:
        sys.exit("likwid-roofs: %s failed: %s" % (" ".join(cmd), (out.stderr or out.stdout).strip()[-300:]))
    return float(m.group(1)) / 1000.0, " ".join(cmd)

ver = subprocess.run([bench, "-h"], capture_output=True, text=True).stdout
m = re.search(r"Version\s+([0-9.]+)", ver)
doc = {"source": "likwid-bench", "likwid_version": m.group(1) if m else "unknown", "ceilings": path,
       "counting": "load_avx512: 8 bytes per double loaded; stream_sp_avx512: 12 bytes per element "
                   "(STREAM); GB/s = MByte/s / 1000", "rows": []}
try:
    thp = re.search(r"\[(\w+)\]", open("/sys/kernel/mm/transparent_hugepage/enabled").read()).group(1)
except (OSError, AttributeError):
    thp = "unknown"
doc["thp"] = thp
if thp != "always":
    print("likwid-roofs: note: transparent huge pages are '%s', not 'always': likwid-bench streams "
          "4 KiB pages where headroom's buffers have 2 MiB ones (L3/DRAM read lower)" % thp, file=sys.stderr)
print("%7s  %-5s  %12s  %9s %9s %6s  %9s %9s %6s" % ("threads", "level", "bytes/thread", "hr load",
      "lw load", "ratio", "hr triad", "lw triad", "ratio"))
for r in c["ceilings"]:
    t = r["threads"]
    row = {"threads": t, "commands": []}
    for lvl in ("L1", "L2", "L3"):
        cr = r.get("cache_roofs", {}).get(lvl)
        if not cr:
            continue
        ws = cr["working_set_bytes"]
        ld, c1 = run("load_avx512", ws * t, t)
        tr, c2 = run("stream_sp_avx512", ws * t, t)
        row[lvl] = {"working_set_bytes": ws, "load_gbs": ld, "triad_gbs": tr}
        row["commands"] += [c1, c2]
        print("%7d  %-5s  %12.0f  %9.1f %9.1f %6.2f  %9.1f %9.1f %6.2f" % (t, lvl, ws, cr["load_gbs"], ld,
              cr["load_gbs"] / ld, cr["triad_gbs"], tr, cr["triad_gbs"] / tr))
    tb = c.get("triad_bytes") or 256 * 2**20
    tr, c3 = run("stream_sp_avx512", tb, t)
    row["DRAM"] = {"working_set_bytes": tb / t, "triad_gbs": tr}
    row["commands"].append(c3)
    print("%7d  %-5s  %12.0f  %9s %9s %6s  %9.1f %9.1f %6.2f" % (t, "DRAM", tb / t, "-", "-", "-",
          r["triad_gbs"], tr, r["triad_gbs"] / tr))
    doc["rows"].append(row)
out = os.path.join(os.path.dirname(path) or ".", "likwid-roofs.json")
tmp = out + ".tmp"
with open(tmp, "w") as f:
    json.dump(doc, f, indent=1)
os.replace(tmp, out)
print("likwid-bench figures saved to %s (source: likwid-bench)" % out)
EOF
