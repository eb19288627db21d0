#!/usr/bin/env python3
"""site_check.py — checks one page of a headroom site as a headless browser left it.

Usage: site_check.py PAGE.html DOM.html
PAGE is the file as written (its inline data, <script id="hr-data">); DOM the page after its
script ran (chromium --dump-dom). Prints one line per problem and exits 1 when there is any:
the script did not finish (no data-ready), it caught an error (data-errors, #hr-errors), a
chart missing from the DOM, a chart whose points drawn (data-points) differ from the rows
of its data that have both plotted values (counted here, from the page's data), a chart
with rows behind it that draws none, a chart whose series drawn (data-series) differ
from the groups of those rows, a chart whose click-through table is not on the page or
reads other rows, a table not drawn whole, and A/B rows whose ratio lies outside their
interval or whose verdict goes against the ratio.
"""
import html
import json
import math
import re
import sys


def usable(v, log):
    return isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v) and (not log or v > 0)


def main():
    page, dom = open(sys.argv[1], encoding="utf-8").read(), open(sys.argv[2], encoding="utf-8").read()
    m = re.search(r'<script type="application/json" id="hr-data">(.*?)</script>', page, re.S)
    bad = []
    if not m:
        print("no inline data")
        return 1
    data = json.loads(m.group(1))
    body = re.search(r"<body[^>]*>", dom)
    if not body or 'data-ready="1"' not in body.group(0):
        bad.append("the page's script did not finish (no data-ready on <body>)")
    if body and "data-errors" in body.group(0):
        err = re.search(r'<pre id="hr-errors"[^>]*>(.*?)</pre>', dom, re.S)
        bad.append("script errors: " + html.unescape(err.group(1) if err else "?").strip().replace("\n", " | "))
    for c in data.get("charts", []):
        want = sum(1 for r in data.get(c["src"], []) if usable(r.get(c["x"]), c.get("xlog")) and usable(r.get(c["y"]), c.get("ylog")))
        fig = re.search(r'<figure class="chart" id="chart-%s"([^>]*)>' % re.escape(c["id"]), dom)
        if not fig:
            bad.append("chart %s: not in the page" % c["id"])
            continue
        groups = {str(r.get(c.get("group", ""), "")) if c.get("group") else c["y"] for r in data.get(c["src"], [])
                  if usable(r.get(c["x"]), c.get("xlog")) and usable(r.get(c["y"]), c.get("ylog"))}
        ser = re.search(r'data-series="(\d+)"', fig.group(1))
        drawn = re.search(r'data-points="(\d+)"', fig.group(1))
        if want and drawn and drawn.group(1) == "0":
            bad.append("chart %s: empty, with %d rows behind it" % (c["id"], want))
        if ser and drawn and drawn.group(1) != "0" and int(ser.group(1)) != len(groups):
            bad.append("chart %s: %s series drawn, %d groups in its rows" % (c["id"], ser.group(1), len(groups)))
        if c.get("table"):
            t = [t for t in data.get("tables", []) if t["id"] == c["table"]]
            if not t or t[0]["src"] != c["src"]:
                bad.append("chart %s: a click shows rows of table %s, which is not its rows" % (c["id"], c["table"]))
        pts = re.search(r'data-points="(\d+)"', fig.group(1))
        rows = re.search(r'data-rows="(\d+)"', fig.group(1))
        if not pts or int(pts.group(1)) != want or not rows or int(rows.group(1)) != want:
            bad.append("chart %s: %s points drawn, %s rows in the page's count, %d rows in the data"
                       % (c["id"], pts.group(1) if pts else "no", rows.group(1) if rows else "no", want))
    for t in data.get("tables", []):
        n = len(data.get(t["src"], []))
        if not re.search(r'<span class="count">%d of %d rows</span>' % (n, n), dom):
            bad.append("table %s: not drawn with its %d rows" % (t["id"], n))
    for r in data.get("ab", []):
        if r.get("lo") is not None and not r["lo"] <= r["ratio"] <= r["hi"]:
            bad.append("A/B %s: ratio %g outside its interval [%g, %g]" % (r.get("ab"), r["ratio"], r["lo"], r["hi"]))
        if (r["verdict"] == "REGRESSION" and r["ratio"] <= 1) or (r["verdict"] == "IMPROVEMENT" and r["ratio"] >= 1):
            bad.append("A/B %s: verdict %s with ratio %g" % (r.get("ab"), r["verdict"], r["ratio"]))
    for b in bad:
        print(b)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
