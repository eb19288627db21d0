#!/usr/bin/env python3
"""make_likwid_fixtures.py — writes tests/fixtures/likwid/likwid_{FLOPS_SP,MEM}.csv.

The files are laid out as likwid.lua's printOutput prints them with likwid-perfctr -m -O
(Debian likwid 5.2, /usr/share/lua/likwid.lua): per region a STRUCT Info block, then
"TABLE,Region R,Group N Raw|Raw STAT|Metric|Metric STAT,GROUP,K" tables. Tables are lists
of columns that printcsv writes row by row, every line padded with commas to the widest
table; STAT tables (tableMinMaxAvgSum) exist only when more than one hardware thread was
counted. FLOPS_SP: 2 threads, two regions (one thread of naive idle); MEM: 1 thread.
The values are invented; only the layout matters to the merge under test.
"""
import os


def printcsv(tab, width, out):
    for j in range(len(tab[0])):
        out.append(",".join(str(col[j]) for col in tab) + "," * (width - len(tab)))


def stat(tab):  # tableMinMaxAvgSum(tab, 1, 1) of a metric table
    names = [tab[0][0]] + [n + " STAT" for n in tab[0][1:]]
    rows = [[float(c[i]) for c in tab[1:]] for i in range(1, len(tab[0]))]
    return [names, ["Sum"] + ["%g" % sum(r) for r in rows], ["Min"] + ["%g" % min(r) for r in rows],
            ["Max"] + ["%g" % max(r) for r in rows], ["Avg"] + ["%g" % (sum(r) / len(r)) for r in rows]]


def region_block(out, region, g, group, events, counters, metrics, threads, width):
    out.append("STRUCT,Info,3" + "," * (width - 3))
    out.append("CPU name:,AMD EPYC 9R14 96-Core Processor" + "," * (width - 2))
    out.append("CPU type:,AMD K19 (Zen4) architecture" + "," * (width - 2))
    out.append("CPU clock:,2.6 GHz" + "," * (width - 2))
    raw = [["Event"] + [e for e, _ in events], ["Counter"] + [c for _, c in events]]
    for t in range(threads):
        raw.append(["HWThread %d" % t] + [str(v[t]) for v in counters])
    info = [["Region Info", "RDTSC Runtime [s]", "call count"]] + \
           [["HWThread %d" % t, "0.51%d" % t, "12"] for t in range(threads)]
    out.append("TABLE,Region %s,Group %d Raw,%s,%d" % (region, g, group, len(raw[0]) - 1) + "," * (width - 5))
    printcsv(info, width, out)
    printcsv(raw, width, out)
    if threads > 1:
        rs = [["Event"] + [e + " STAT" for e, _ in events], ["Counter"] + [c for _, c in events]]
        for name, f in (("Sum", sum), ("Min", min), ("Max", max), ("Avg", lambda v: sum(v) / len(v))):
            rs.append([name] + ["%g" % f(v) for v in counters])
        out.append("TABLE,Region %s,Group %d Raw STAT,%s,%d" % (region, g, group, len(rs[0]) - 1) + "," * (width - 5))
        printcsv(rs, width, out)
    mt = [["Metric"] + [m for m, _ in metrics]]
    for t in range(threads):
        mt.append(["HWThread %d" % t] + [str(v[t]) for _, v in metrics])
    out.append("TABLE,Region %s,Group %d Metric,%s,%d" % (region, g, group, len(mt[0]) - 1) + "," * (width - 5))
    printcsv(mt, width, out)
    if threads > 1:
        st = stat(mt)
        out.append("TABLE,Region %s,Group %d Metric STAT,%s,%d" % (region, g, group, len(st[0]) - 1) + "," * (width - 5))
        printcsv(st, width, out)


def main():
    d = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "fixtures", "likwid")
    os.makedirs(d, exist_ok=True)
    out = []
    ev = [("ACTUAL_CPU_CLOCK", "FIXC1"), ("MAX_CPU_CLOCK", "FIXC2"), ("RETIRED_INSTRUCTIONS", "PMC0"),
          ("CPU_CLOCKS_UNHALTED", "PMC1"), ("RETIRED_SSE_AVX_FLOPS_SINGLE_ALL", "PMC2")]
    for region, mf in (("flash/B1/H16/G16/N2048/M2048/d64/full/bhnd/T2", (98000.5, 97500.5)),
                       ("naive/B1/H8/G8/N256/M256/d64/full/bhnd/T1", (7100.25, 0))):
        cnt = [(1.3e9, 1.2e9), (1.3e9, 1.2e9), (2.0e9, 1.9e9), (1.3e9, 1.2e9), (5.0e10, 4.9e10)]
        met = [("Runtime (RDTSC) [s]", (0.5102, 0.5101)), ("Runtime unhalted [s]", (0.5, 0.49)),
               ("Clock [MHz]", (3700, 3690)), ("CPI", (0.65, 0.63)), ("SP [MFLOP/s]", mf)]
        region_block(out, region, 1, "FLOPS_SP", ev, cnt, met, 2, 6)
    open(os.path.join(d, "likwid_FLOPS_SP.csv"), "w").write("\n".join(out) + "\n")
    out = []
    ev = [("ACTUAL_CPU_CLOCK", "FIXC1"), ("DATA_FROM_LOCAL_DRAM_CHANNEL", "DFC0")]
    region_block(out, "decode/B1/H32/G8/N1/M16384/d128/full/bhnd/T1", 1, "MEM", ev, [(1.3e9,), (2.1e6,)],
                 [("Runtime (RDTSC) [s]", (0.25,)), ("Memory bandwidth [MBytes/s]", (24250.5,)),
                  ("Memory data volume [GBytes]", (6.06,))], 1, 4)
    open(os.path.join(d, "likwid_MEM.csv"), "w").write("\n".join(out) + "\n")


if __name__ == "__main__":
    main()
