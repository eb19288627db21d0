#!/usr/bin/env python3
"""check-layers.py — the house rules: rooms only look down, no circles, of includes or of symbols.

The rooms, lowest first, are the Makefile's ROOMS (docs/ARCHITECTURE.md "Layers"). A room
is a folder tree (kernels/ holds a folder per family), less any subfolder that is a room
of its own. A file may include headers of its own room and of the rooms below it, never
of a room above. A module is a .c/.h pair; module A depends on module B when a file of A
includes B's header. A circle of modules is an error even inside one room. Also enforced:
no source file past MAX_LINES lines of code (comments and blank lines do not count),
kernels reach SIMD intrinsics only through the vector layer (kernels/vec/), and no
circle of symbol references between the kernels' object files (nm: object A references
a symbol object B defines), so lower code never calls back up. The objects are those of
one ISA level of the portable build with the portable build's own kernel objects
(build/portable/lv_avx512/kernels/ and build/portable/kernels/), else a fixed-level
build's kernels/; with none built that part is skipped with a line saying so. An object
whose dependency file names a source that no longer exists (left from before files
moved) is no part of the build and is left out.

usage: scripts/check-layers.py [--root DIR] [--objects DIR]...
Prints one line per violation and exits 1 when there is any, else prints a summary
and exits 0.
"""
import glob
import os
import re
import subprocess
import sys

MAX_LINES = 620  # "no source file past about 600 lines" of code
VECTOR_LAYER = "kernels/vec/"  # the vector layer: kernels/vec/<isa>/
INTRINSICS = re.compile(r"\b_mm(256|512)?_\w+\s*\(|#include\s*<(imm|x86|immintrin)")
# Where the objects are looked for, first found wins (relative to the root): one level of
# the portable build beside its own kernel objects (registry, dispatch), or a fixed build.
OBJECT_DIRS = [["build/portable/lv_avx512/kernels", "build/portable/kernels"], ["build/avx512/kernels"],
               ["build/native/kernels"], ["build/avx2/kernels"], ["build/generic/kernels"]]


def rooms_from_makefile(root):
    text = open(os.path.join(root, "Makefile")).read()
    m = re.search(r"^ROOMS\s*:=\s*(.+)$", text, re.M)
    if not m:
        sys.exit("check-layers: no ROOMS := line in the Makefile")
    return m.group(1).split()


def room_files(root, room, rooms):
    """The files of a room's folder tree (paths relative to the room), less those of a
    subfolder that is a room of its own."""
    top = os.path.join(root, room)
    out = []
    for d, subs, names in os.walk(top):
        rel = os.path.relpath(d, root).replace(os.sep, "/")
        if rel != room and rel in rooms:
            subs[:] = []
            continue
        subs.sort()
        for n in sorted(names):
            out.append(os.path.relpath(os.path.join(d, n), top).replace(os.sep, "/"))
    return out


def code_lines(text):
    """Lines that hold code: not blank, not only a comment (/* ... */ or //)."""
    n, in_comment = 0, False
    for line in text.splitlines():
        code, i = [], 0
        while i < len(line):
            if in_comment:
                end = line.find("*/", i)
                if end < 0:
                    i = len(line)
                else:
                    in_comment, i = False, end + 2
            elif line.startswith("/*", i):
                in_comment, i = True, i + 2
            elif line.startswith("//", i):
                break
            elif line[i] in "\"'":  # a literal: skip to its closing quote
                q, j = line[i], i + 1
                while j < len(line) and line[j] != q:
                    j += 2 if line[j] == "\\" else 1
                code.append(line[i:j + 1])
                i = j + 1
            else:
                code.append(line[i])
                i += 1
        if "".join(code).strip():
            n += 1
    return n


def source_of(obj, root):
    """The source an object was compiled from, as its dependency file (-MMD: obj.d beside
    it) names it first, relative to the root; None where there is no such file."""
    try:
        text = open(obj[:-2] + ".d", encoding="utf-8").read()
    except OSError:
        return None
    prereqs = text.replace("\\\n", " ").split("\n", 1)[0].partition(":")[2].split()
    if not prereqs:
        return None
    return prereqs[0] if os.path.isabs(prereqs[0]) else os.path.join(root, prereqs[0])


def symbol_cycles(objdirs, root="."):
    """Circles of symbol references between the object files under objdirs: a list of
    lists of (object, next object, a symbol it takes from it). An object whose dependency
    file names a source that no longer exists (a build folder from before files moved)
    is left out: it is not part of any build of this tree."""
    objs = sorted({o for d in objdirs for o in glob.glob(os.path.join(d, "**", "*.o"), recursive=True)})
    objs = [o for o in objs if (src := source_of(o, root)) is None or os.path.exists(src)]
    if not objs:
        return None
    out = subprocess.run(["nm", "-A", "-P"] + objs, capture_output=True, text=True, check=True).stdout
    defs, undefs = {}, {}
    for line in out.splitlines():
        f, _, rest = line.partition(": ")
        parts = rest.split()
        if len(parts) < 2:
            continue
        sym, kind = parts[0], parts[1]
        if kind == "U":
            undefs.setdefault(f, set()).add(sym)
        elif kind.isupper() or kind == "u":
            defs.setdefault(sym, f)
    deps = {}
    for f, syms in undefs.items():
        for s in sorted(syms):
            if s in defs and defs[s] != f:
                deps.setdefault(f, {}).setdefault(defs[s], s)
    # strongly connected components (Tarjan's, iterative): each with more than one object is a circle
    index, low, on, stack, sccs, counter = {}, {}, set(), [], [], [0]
    for start in sorted(deps):
        if start in index:
            continue
        work = [(start, iter(sorted(deps.get(start, {}))))]
        index[start] = low[start] = counter[0]
        counter[0] += 1
        stack.append(start)
        on.add(start)
        while work:
            v, it = work[-1]
            w = next(it, None)
            if w is not None:
                if w not in index:
                    index[w] = low[w] = counter[0]
                    counter[0] += 1
                    stack.append(w)
                    on.add(w)
                    work.append((w, iter(sorted(deps.get(w, {})))))
                elif w in on:
                    low[v] = min(low[v], index[w])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[v])
            if low[v] == index[v]:
                comp = []
                while True:
                    w = stack.pop()
                    on.discard(w)
                    comp.append(w)
                    if w == v:
                        break
                if len(comp) > 1:
                    sccs.append(sorted(comp))
    top = os.path.commonpath([os.path.abspath(d) for d in objdirs])
    rel = lambda f: os.path.relpath(os.path.abspath(f), top)
    return [[(rel(a), rel(b), s) for a in comp for b, s in sorted(deps.get(a, {}).items()) if b in comp]
            for comp in sccs]


def main():
    args = sys.argv[1:]
    root, objdirs = ".", []
    while args:
        if len(args) >= 2 and args[0] == "--root":
            root, args = args[1], args[2:]
        elif len(args) >= 2 and args[0] == "--objects":
            objdirs, args = objdirs + [args[1]], args[2:]
        else:
            sys.exit("usage: scripts/check-layers.py [--root DIR] [--objects DIR]")
    rooms = rooms_from_makefile(root)
    where = {}  # header base name -> room index
    files = []  # (path, room index)
    for i, room in enumerate(rooms):
        for name in room_files(root, room, rooms):
            if name.endswith((".c", ".h")):
                path = f"{room}/{name}"
                name = os.path.basename(name)
                files.append((path, i))
                if name.endswith(".h"):
                    if name in where:
                        print(f"{path}: header name also in {rooms[where[name]]}")
                    where[name] = i
    bad = 0
    deps = {}  # module (room/stem) -> set of modules
    module_of = {}
    for path, i in files:
        module_of[os.path.basename(path)] = path.rsplit(".", 1)[0]
    for path, i in files:
        text = open(os.path.join(root, path), encoding="utf-8").read()
        lines = code_lines(text)
        if lines > MAX_LINES:
            print(f"{path}: {lines} lines of code (the limit is about 600)")
            bad += 1
        if path.startswith("kernels/") and not path.startswith(VECTOR_LAYER):
            for n, line in enumerate(text.splitlines(), 1):
                if INTRINSICS.search(line):
                    print(f"{path}:{n}: SIMD intrinsic outside the vector layer (kernels/vec/)")
                    bad += 1
        me = path.rsplit(".", 1)[0]
        for n, line in enumerate(text.splitlines(), 1):
            m = re.match(r'\s*#\s*include\s+"([^"]+)"', line)
            if not m:
                continue
            inc = os.path.basename(m.group(1))
            if inc not in where:
                continue  # generated (buildinfo.h, gitinfo.h) or a system header
            j = where[inc]
            if j > i:
                print(f"{path}:{n}: includes {inc} of {rooms[j]}, a room above {rooms[i]}")
                bad += 1
            other = module_of[inc].rsplit(".", 1)[0]
            if other != me:
                deps.setdefault(me, set()).add(other)
    # circles: depth-first search over the module graph
    state, stack, seen_cycles = {}, [], set()

    def visit(m):
        nonlocal bad
        state[m] = 1
        stack.append(m)
        for d in sorted(deps.get(m, ())):
            if state.get(d) == 1:
                cyc = stack[stack.index(d):]
                key = frozenset(cyc)
                if key not in seen_cycles:
                    seen_cycles.add(key)
                    print("include circle: " + " -> ".join(cyc + [d]))
                    bad += 1
            elif d not in state:
                visit(d)
        stack.pop()
        state[m] = 2

    for m in sorted(deps):
        if m not in state:
            visit(m)
    # symbol circles between object files
    if not objdirs:
        objdirs = next(([os.path.join(root, d) for d in ds] for ds in OBJECT_DIRS
                        if glob.glob(os.path.join(root, ds[0], "**", "*.o"), recursive=True)), [])
    cycles = symbol_cycles(objdirs, root) if objdirs else None
    where = " and ".join(objdirs) or " or ".join(ds[0] for ds in OBJECT_DIRS)
    if cycles is None:
        syms = "no symbol circle check (no kernel objects built: run make first)"
        print(f"check-layers: no objects under {where}: symbol circles not checked")
    else:
        syms = f"no symbol circle among the objects of {where}"
        for cyc in cycles:
            print("symbol circle: " + "; ".join(f"{a} -> {b} ({s})" for a, b, s in cyc))
            bad += 1
    if bad:
        print(f"check-layers: {bad} violation(s)")
        return 1
    print(f"check-layers: {len(files)} files in {len(rooms)} rooms, no upward include, no circle; {syms}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
