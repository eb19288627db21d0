#!/usr/bin/env python3
"""likwid-merge.py OUTDIR GROUP... — merge likwid-perfctr -O CSV files into OUTDIR/likwid.csv.

Reads OUTDIR/likwid_GROUP.csv for each GROUP (written by likwid-perfctr -m -g GROUP -O -o
...) and writes one row per Marker region x derived metric:
    name,group,metric,sum,min,max,avg
name is the region, which headroom names like the result row (flash/B1/H16/...), so the
rows join results.csv on name. The input is what likwid.lua's printOutput prints with
-O: per region, "TABLE,Region R,Group N Raw,..." (events; skipped), "TABLE,Region R,Group
N Metric,GROUP,..." (a "Metric,HWThread 0,..." header, then one row per metric with a
value per hardware thread) and, when more than one thread was counted, "TABLE,Region R,
Group N Metric STAT,..." (header "Metric,Sum,Min,Max,Avg", metric names ending " STAT").
STAT rows are taken as they are; a region counted on one thread only has no STAT table,
and its value is its own sum, min, max and mean. Lines are padded with commas to the
widest table; "STRUCT" blocks (CPU info) end a table. Missing group files are skipped.
"""
import csv
import os
import sys


def merge(out, groups):
    rows = []
    for g in groups:
        path = os.path.join(out, f"likwid_{g}.csv")
        if not os.path.exists(path):
            continue
        region, kind, header, stat_seen, plain = None, None, None, set(), {}
        with open(path, newline="") as f:
            for rec in csv.reader(f):
                if not rec or not rec[0]:
                    continue
                if rec[0] == "TABLE":
                    region = rec[1][len("Region "):] if len(rec) > 2 and rec[1].startswith("Region ") else None
                    what = rec[2] if len(rec) > 2 else ""
                    kind = "stat" if what.endswith("Metric STAT") else "metric" if what.endswith("Metric") else None
                    header = None
                    continue
                if rec[0] == "STRUCT":
                    region = kind = None
                    continue
                if region is None or kind is None:
                    continue
                if header is None:
                    header = rec
                    continue
                vals = [v for v in rec[1:] if v != ""]
                if kind == "stat":
                    stat_seen.add(region)
                    metric = rec[0][:-len(" STAT")] if rec[0].endswith(" STAT") else rec[0]
                    rows.append([region, g, metric] + vals[:4])
                else:
                    plain.setdefault(region, []).append((rec[0], vals))
        for region, ms in plain.items():
            if region in stat_seen:
                continue
            for name, vals in ms:
                v = vals[0] if vals else ""
                rows.append([region, g, name, v, v, v, v])
    with open(os.path.join(out, "likwid.csv"), "w", newline="") as f:
        w = csv.writer(f, lineterminator="\n")
        w.writerow(["name", "group", "metric", "sum", "min", "max", "avg"])
        w.writerows(rows)
    return rows


if __name__ == "__main__":
    if len(sys.argv) < 3:
        sys.stderr.write("usage: likwid-merge.py OUTDIR GROUP...\n")
        sys.exit(2)
    if not os.path.isdir(sys.argv[1]):
        sys.stderr.write(f"likwid-merge: {sys.argv[1]}: not a directory\n")
        sys.exit(2)
    n = len(merge(sys.argv[1], sys.argv[2:]))
    print(f"likwid-sweep: {n} counter rows in {sys.argv[1]}/likwid.csv (match 'name' with results.csv)")
