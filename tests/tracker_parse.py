#!/usr/bin/env python3
"""tracker_parse.py — replays the CI trackers' own parsing rules on `headroom export` output.

Usage: tracker_parse.py N gab:FILE[:unit] ... bencher:FILE:measure ...
Prints one "ok   export/<case>" or "FAIL export/<case>: why" line per file (tests/lib.sh's
format) and exits 1 on any failure. N is the number of benchmarks the export must hold.

github-action-benchmark (src/extract.ts, tools customBiggerIsBetter/customSmallerIsBetter):
  extractCustomBenchmarkResult does `JSON.parse(output)` and `json.map(({name, value, unit,
  range, extra}) => ...)`, so the document must be an array of objects (a non-array has no
  .map and the action fails); extractResult then throws "No benchmark result was found" on
  an empty list. The alert and the charts (src/write.ts) pair a benchmark with the previous
  run's by `name` and compute `value` ratios, so names must be unique strings and values
  numbers; `unit` is printed beside every value; `range` and `extra` are optional strings.
Bencher Metric Format (bencher.dev/docs/reference/bencher-metric-format, its JSON schema):
  an object of benchmark name -> object of measure -> {value (required), lower_value,
  upper_value}, all numbers.
"""
import json
import math
import sys

failures = 0


def report(case, why):
    global failures
    if why:
        failures += 1
        print(f"FAIL export/{case}: {why}")
    else:
        print(f"ok   export/{case}")


def is_num(v):
    # JSON numbers only: bool is an int in Python but a boolean in JSON.
    return isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v)


def check_gab(path, n, unit):
    with open(path, encoding="utf-8") as f:
        text = f.read()
    try:
        doc = json.loads(text)  # JSON.parse(output)
    except ValueError as e:
        return f"not JSON: {e}"
    if not isinstance(doc, list):  # json.map(...) needs an array
        return f"top level is {type(doc).__name__}, not an array"
    benches = []
    for i, e in enumerate(doc):
        if not isinstance(e, dict):  # ({name, value, ...}) destructures an object
            return f"entry {i} is not an object"
        benches.append({k: e.get(k) for k in ("name", "value", "unit", "range", "extra")})
    if not benches:
        return "no benchmark result was found (the action's own error)"
    names = set()
    for i, b in enumerate(benches):
        if not isinstance(b["name"], str) or not b["name"]:
            return f"entry {i}: name is not a non-empty string"
        if not is_num(b["value"]):
            return f"entry {i} ({b['name']}): value {b['value']!r} is not a finite number"
        if b["value"] <= 0:
            return f"entry {i} ({b['name']}): value {b['value']} is not positive"
        if not isinstance(b["unit"], str) or (unit and b["unit"] != unit):
            return f"entry {i} ({b['name']}): unit {b['unit']!r}, expected {unit!r}"
        for k in ("range", "extra"):
            if b[k] is not None and not isinstance(b[k], str):
                return f"entry {i} ({b['name']}): {k} is not a string"
        if b["name"] in names:
            return f"name {b['name']!r} appears twice (the alert pairs runs by name)"
        names.add(b["name"])
    if len(benches) != n:
        return f"{len(benches)} entries, expected {n}"
    return None


def check_bencher(path, n, measure):
    with open(path, encoding="utf-8") as f:
        try:
            doc = json.load(f)
        except ValueError as e:
            return f"not JSON: {e}"
    if not isinstance(doc, dict):
        return "top level is not an object"
    for name, ms in doc.items():
        if not name or not isinstance(ms, dict) or not ms:
            return f"benchmark {name!r}: not an object of measures"
        for m, v in ms.items():
            if not m or not isinstance(v, dict) or not is_num(v.get("value")):
                return f"benchmark {name!r} measure {m!r}: no numeric value"
            for k in ("lower_value", "upper_value"):
                if k in v and not is_num(v[k]):
                    return f"benchmark {name!r}: {k} is not a number"
            if "lower_value" in v and not v["lower_value"] <= v["value"] <= v["upper_value"]:
                return f"benchmark {name!r}: value outside [lower_value, upper_value]"
        if measure and measure not in ms:
            return f"benchmark {name!r}: no {measure!r} measure"
    if len(doc) != n:
        return f"{len(doc)} benchmarks, expected {n}"
    return None


def main():
    n = int(sys.argv[1])
    for arg in sys.argv[2:]:
        kind, path, extra = (arg.split(":", 2) + [""])[:3]
        case = f"{kind}_{path.rsplit('/', 1)[-1]}"
        try:
            why = check_gab(path, n, extra) if kind == "gab" else check_bencher(path, n, extra)
        except OSError as e:
            why = f"cannot read: {e}"
        report(case, why)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
