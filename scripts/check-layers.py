#!/usr/bin/env python3
"""check-layers.py — the house rules over #include lines: rooms only look down, no circles.

The rooms, lowest first, are the Makefile's ROOMS (docs/ARCHITECTURE.md "Layers"):
a file may include headers of its own room and of the rooms below it, never of a room
above. A module is a .c/.h pair; module A depends on module B when a file of A includes
B's header. A circle of modules is an error even inside one room. Also enforced: no
source file past MAX_LINES lines, and kernels reach SIMD intrinsics only through the
vector layer (kernels/vec/).

usage: scripts/check-layers.py [--root DIR]
Prints one line per violation and exits 1 when there is any, else prints a summary
and exits 0.
"""
import os
import re
import sys

MAX_LINES = 620  # "no source file past about 600 lines"
VECTOR_LAYER = "kernels/vec/"  # the vector layer: kernels/vec/<isa>/
INTRINSICS = re.compile(r"\b_mm(256|512)?_\w+\s*\(|#include\s*<(imm|x86|immintrin)")


def rooms_from_makefile(root):
    text = open(os.path.join(root, "Makefile")).read()
    m = re.search(r"^ROOMS\s*:=\s*(.+)$", text, re.M)
    if not m:
        sys.exit("check-layers: no ROOMS := line in the Makefile")
    return m.group(1).split()


def room_files(root, room, rooms):
    """A room is a folder tree: its files, those of its subfolders too (paths relative to
    the room), but not those of a subfolder that is a room of its own."""
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


def main():
    root = "."
    if len(sys.argv) == 3 and sys.argv[1] == "--root":
        root = sys.argv[2]
    elif len(sys.argv) != 1:
        sys.exit("usage: scripts/check-layers.py [--root DIR]")
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
        lines = text.count("\n")
        if lines > MAX_LINES:
            print(f"{path}: {lines} lines (the limit is about 600)")
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
    if bad:
        print(f"check-layers: {bad} violation(s)")
        return 1
    print(f"check-layers: {len(files)} files in {len(rooms)} rooms, no upward include, no circle")
    return 0


if __name__ == "__main__":
    sys.exit(main())
