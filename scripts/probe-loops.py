#!/usr/bin/env python3
"""probe-loops.py — the ceiling loops of a headroom binary issue their instruction from registers.

`headroom roofline` measures each compute roof with a chain loop (harness/measure/probe.c):
FMA per ISA, vdpbf16ps, vpdpbusd, the vpmaddubsw triple. A loop whose chains the compiler
keeps in memory, or copies and stores every iteration, measures those moves and stores
rather than the instruction (GCC 12 once did so for both vpdpbusd loops: the final loop
that stores the chains was not unrolled, so it indexed them). This reads the
binary's disassembly (objdump) and, per loop function present, finds the innermost
backward branch around its instruction and counts the memory operands and register moves
in that loop. Prints one line per loop and a summary "N loops, M with memory operands or
moves"; exit 1 when M > 0, 2 when objdump cannot read the binary.

usage: probe-loops.py BINARY
"""
import re
import subprocess
import sys

# loop function -> the instruction its chains issue
LOOPS = {
    "fma_avx512": r"vfmadd\w+ps\s.*zmm",
    "fma_avx2": r"vfmadd\w+ps\s.*ymm",
    "fma_sse2": r"\bv?mulps\b",
    "fma_scalar": r"\bv?mulss\b",
    "dot_bf16_512": r"vdpbf16ps",
    "dot_vnni_512": r"vpdpbusd\s.*zmm",
    "dot_vnni_256": r"vpdpbusd\s.*ymm",
    "dot_maddubs_256": r"vpmaddubsw",
}


def main():
    if len(sys.argv) != 2:
        print("usage: probe-loops.py BINARY", file=sys.stderr)
        return 2
    try:
        out = subprocess.run(["objdump", "-d", "--no-show-raw-insn", sys.argv[1]], capture_output=True,
                             text=True, check=True).stdout
    except (OSError, subprocess.CalledProcessError) as e:
        print(f"probe-loops.py: objdump {sys.argv[1]}: {e}", file=sys.stderr)
        return 2
    # functions by name, static ones possibly suffixed (.constprop.0, .isra.0)
    funcs = {}
    for m in re.finditer(r"^[0-9a-f]+ <([\w.]+)>:\n(.*?)(?=\n\n|\Z)", out, re.S | re.M):
        base = m.group(1).split(".")[0]
        if base in LOOPS:
            funcs.setdefault(base, []).append(m.group(2))
    n = bad = 0
    for name, insn in LOOPS.items():
        for body in funcs.get(name, []):
            lines = [l for l in body.split("\n") if re.match(r"\s*[0-9a-f]+:", l)]
            at = [int(l.split(":")[0], 16) for l in lines]
            loop = None
            for l in lines:
                j = re.match(r"\s*([0-9a-f]+):\s+j\w+\s+([0-9a-f]+)", l)
                if not j or int(j.group(2), 16) >= int(j.group(1), 16):
                    continue
                lo, hi = int(j.group(2), 16), int(j.group(1), 16)
                span = [l2 for l2, a in zip(lines, at) if lo <= a <= hi]
                if any(re.search(insn, l2) for l2 in span) and (loop is None or len(span) < len(loop)):
                    loop = span
            if loop is None:
                continue  # not this build's form (e.g. a non-x86 stub)
            n += 1
            mem = [l for l in loop if "(%" in l]
            mov = [l for l in loop if re.search(r"\bv?mov\w*\s+%[xyz]mm\d+,%[xyz]mm\d+", l)]
            ops = sum(1 for l in loop if re.search(insn, l))
            print(f"{name}: {ops} instructions, {len(mem)} memory operands, {len(mov)} register moves "
                  f"in its {len(loop)}-instruction loop")
            if mem or mov:
                bad += 1
    print(f"{n} loops, {bad} with memory operands or moves")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
