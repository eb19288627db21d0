#!/usr/bin/env python3
"""gen-docs.py — writes the CLI reference (docs/reference/cli.md) and the man page
(docs/headroom.1) from the option tables, and checks that the committed ones are current.

The tables come from the binary itself: `headroom help --reference` walks main's command
table and hands every command's option table, as the command builds it, to JSON
(harness/cli/reference.c). The man page's prose is docs/reference/headroom.1.in, its
ENVIRONMENT section is rendered from docs/reference/environment.md, and its version is
the VERSION file, so two runs on one tree write the same bytes.

usage: scripts/gen-docs.py (--bin HEADROOM | --tables FILE.json) [--root DIR] [--out DIR] [--check]
       scripts/gen-docs.py --check-env [--root DIR]
  --bin      the binary whose tables to read (make docs: the one it built)
  --tables   a saved `headroom help --reference` (tests)
  --root     the source tree (default: this script's ../)
  --out      write under DIR/docs/... instead of the tree
  --check    write nothing; one line "FILE is stale: run make docs" per file that differs
             from what would be written, exit 1 if any does
  --check-env  every HEADROOM_* name in the sources (harness kernels include scripts examples
             Makefile peers) must be in docs/reference/environment.md: a heading "### `NAME`"
             or a bullet "- `NAME`"; one line names the missing ones, exit 1
"""
import argparse
import json
import os
import re
import subprocess
import sys

CLI_MD = "docs/reference/cli.md"
MAN = "docs/headroom.1"
MAN_IN = "docs/reference/headroom.1.in"
ENV_MD = "docs/reference/environment.md"
ENV_SOURCES = ["harness", "kernels", "include", "scripts", "Makefile", "peers", "examples"]


def num(x):
    """A range bound as the reader wants it: 4096, 0.05, 1e+18."""
    if float(x).is_integer() and abs(x) < 1e15:
        return str(int(x))
    return "%g" % x


def walk(options, path=()):
    """(group path, option) for every option, groups flattened in table order."""
    for o in options:
        if "group" in o:
            yield from walk(o["options"], path + (o["group"],))
        else:
            yield path, o


def split_synopsis(s):
    """The usage line(s) and the description after the first blank line."""
    head, _, desc = s.partition("\n\n")
    return head, desc


def paragraphs(desc):
    """(preformatted, lines) per paragraph of a description: a paragraph with an indented
    line is a table of its own (export's formats) and keeps its layout."""
    out = []
    for para in desc.split("\n\n"):
        lines = [l for l in para.split("\n") if l.strip()]
        if lines:
            out.append((any(l.startswith("  ") for l in lines), lines))
    return out


def group_users(commands):
    """group name -> the commands whose tables splice it in, in table order."""
    users = {}

    def visit(name, options):
        for o in options:
            if "group" in o:
                lst = users.setdefault(o["group"], [])
                if name not in lst:
                    lst.append(name)
                visit(name, o["options"])

    for c in commands:
        visit(c["name"], c["options"])
    return users


def arg_text(o, code, sep):
    """The argument an option takes: choices, a metavar, nothing for a flag."""
    if o["kind"] == "flag":
        return ""
    if o.get("choices"):
        return sep.join(code(c) for c in o["choices"])
    return code(o.get("metavar") or "X")


def range_text(o):
    if "min" in o:
        return "%s to %s" % (num(o["min"]), num(o["max"]))
    return ""


# ---- markdown -----------------------------------------------------------------------

def md_text(s, cell=False):
    """Text as markdown shows it: < and * escaped, and | in a table cell."""
    s = s.replace("<", "&lt;").replace("*", "\\*")
    return s.replace("|", "\\|") if cell else s


def md_table(rows):
    out = ["| Option | Argument | Range | Description |", "|---|---|---|---|"]
    for o in rows:
        out.append("| `%s` | %s | %s | %s |" % (
            o["name"], arg_text(o, lambda x: "`%s`" % x, ", "), range_text(o), md_text(o["help"], True)))
    return out


def md_options(options, users, cmd, out):
    """The command's own options in one table, then each group it splices in (a group
    within a group after it) in a table under a line naming the group."""
    own = [o for o in options if "group" not in o]
    if own:
        out.extend(md_table(own) + [""])

    def groups(opts, path):
        for o in opts:
            if "group" not in o:
                continue
            others = [u for u in users.get(o["group"], []) if u != cmd]
            also = " (also in %s)" % ", ".join(others) if others else ""
            label = " / ".join(path + (o["group"],))
            out.extend(["The `%s` group%s:" % (label, also), ""])
            inner = [x for x in o["options"] if "group" not in x]
            if inner:
                out.extend(md_table(inner) + [""])
            groups(o["options"], path + (o["group"],))

    groups(options, ())


def render_md(doc, version):
    cmds = [c for c in doc["commands"] if not c.get("hidden")]
    users = group_users(cmds)
    out = [
        "# Command-line reference",
        "",
        "<!-- generated by make docs from the option tables; do not edit -->",
        "",
        "**How this page is made.** `make docs` runs `headroom help --reference`, which walks",
        "the binary's command table and prints every command's option table, as the command",
        "builds it for `--help`, as JSON; `scripts/gen-docs.py` turns that into this page and",
        "the man page `docs/headroom.1` (its prose from `docs/reference/headroom.1.in`, its",
        "ENVIRONMENT section from [environment.md](environment.md)). Generated by make docs",
        "from the option tables; do not edit: change the table in `harness/cli/` and run",
        "`make docs`. `make test` fails while this page differs from what the tables say",
        "(`tests/sh_docs.sh`).",
        "",
        "headroom %s. Every command answers `--help` with the same table; an option takes its" % version,
        "value as `--flag VALUE` or `--flag=VALUE`; the default is in parentheses at the end of",
        "its description. Exit status: 0 success, 1 a failed check or a regression, 2 bad usage",
        "or input (one line naming the flag), 3 no verdict (compare, ab) or a kernel caught by the",
        "memory guards (one line naming the buffer), 4 a measurement that failed in its worker",
        "process: a kernel that crashed, exited or ran past `--timeout` (run, check, sweep, tune;",
        "a sweep records the point and measures the others). Environment variables:",
        "[environment.md](environment.md); results files: [results.md](results.md).",
        "",
        "    usage: headroom COMMAND [options]",
        "           headroom --help | --version",
        "           headroom COMMAND --help",
        "",
        "## Global options",
        "",
        "Accepted before or after COMMAND.",
        "",
    ]
    out += md_table([o for _, o in walk(doc["global_options"])]) + [""]
    out += ["## Commands", ""]
    out += ["| Command | What it does |", "|---|---|"]
    out += ["| [%s](#%s) | %s |" % (c["name"], c["name"], md_text(c["summary"], True)) for c in cmds]
    out.append("")
    for c in cmds:
        head, desc = split_synopsis(c["synopsis"])
        out += ["## %s" % c["name"], "", md_text(c["summary"][0].upper() + c["summary"][1:]) + ".", ""]
        out += ["    usage: headroom " + line if i == 0 else "           " + line
                for i, line in enumerate(head.split("\n"))]
        out.append("")
        for pre, lines in paragraphs(desc):
            out += (["    " + l for l in lines] if pre else [md_text(l) for l in lines]) + [""]
        md_options(c["options"], users, c["name"], out)
        out += ["`--help` prints this table.", ""]
    return "\n".join(out).rstrip("\n") + "\n"


# ---- man page -----------------------------------------------------------------------

def man_esc(s):
    """Backslash and hyphen escaped, a non-ASCII character as groff's \\[uXXXX]."""
    s = s.replace("\\", "\\e").replace("-", "\\-")
    return "".join(c if ord(c) < 128 else "\\[u%04X]" % ord(c) for c in s)


def man_line(s):
    """One text line: escaped, a leading . or ' defused."""
    s = man_esc(s)
    return "\\&" + s if s[:1] in (".", "'") else s


def man_inline(s):
    """Markdown's `code` as bold, [text](link) as text, \\* as *."""
    s = re.sub(r"\[([^\]]+)\]\([^)]+\)", r"\1", s)
    s = s.replace("\\*", "*")
    parts = re.split(r"`([^`]*)`", s)
    out = []
    for i, p in enumerate(parts):
        out.append("\\fB%s\\fR" % man_esc(p) if i % 2 else man_esc(p))
    t = "".join(out)
    return "\\&" + t if t[:1] in (".", "'") else t


def man_options(options):
    out = []
    for path, o in walk(options):
        arg = arg_text(o, lambda x: x, "|")
        out.append(".TP")
        out.append(".B %s" % man_esc(o["name"]) if not arg else
                   '.BI "%s " "%s"' % (man_esc(o["name"]), man_esc(arg)))
        text = o["help"]
        rng = range_text(o)
        if rng:
            text += " [%s]" % rng
        out.append(man_line(text))
    return out


def render_man_commands(doc):
    out = []
    for c in doc["commands"]:
        if c.get("hidden"):
            continue
        head, desc = split_synopsis(c["synopsis"])
        out.append(".SS %s" % man_esc(c["name"]))
        out.append(".nf")
        out += [man_line("headroom " + line if i == 0 else "    " + line)
                for i, line in enumerate(head.split("\n"))]
        out.append(".fi")
        out.append(".PP")
        out.append(man_line(c["summary"][0].upper() + c["summary"][1:] + "."))
        for pre, lines in paragraphs(desc):
            out.append(".PP")
            out += [".nf"] + [man_line(l) for l in lines] + [".fi"] if pre else [man_line(l) for l in lines]
        out += man_options(c["options"])
    return out


def parse_env_md(text):
    """[(section, [(names heading, [body lines])])] of environment.md's ## and ### parts."""
    sections = []
    for line in text.split("\n"):
        if line.startswith("## "):
            sections.append((line[3:].strip(), []))
        elif line.startswith("### ") and sections:
            sections[-1][1].append((line[4:].strip(), []))
        elif sections and sections[-1][1]:
            sections[-1][1][-1][1].append(line)
    return sections


def render_man_env(env_text):
    out = []
    for title, entries in parse_env_md(env_text):
        if not entries:
            continue
        out.append(".SS %s" % man_esc(title))
        for head, body in entries:
            out.append(".TP")
            out.append(man_inline(head))
            para = []
            for line in body + [""]:
                line = line.strip()
                if line.startswith("- "):
                    if para:
                        out.append(man_inline(" ".join(para)))
                        para = []
                    out.append(".br")
                    out.append(man_inline(line[2:]))
                elif line:
                    para.append(line)
                elif para:
                    out.append(man_inline(" ".join(para)))
                    para = []
    return out


def render_man(doc, version, template, env_text):
    subst = {
        "@VERSION@": [version],
        "@GLOBAL_OPTIONS@": man_options(doc["global_options"]),
        "@COMMANDS@": render_man_commands(doc),
        "@ENVIRONMENT@": render_man_env(env_text),
    }
    out = []
    for line in template.split("\n"):
        if line.strip() in subst and line.strip() != "@VERSION@":
            out += subst[line.strip()]
        else:
            out.append(line.replace("@VERSION@", version))
    return "\n".join(out).rstrip("\n") + "\n"


# ---- the environment check ----------------------------------------------------------

def env_names_in_source(root):
    names = set()
    pat = re.compile(r"HEADROOM_[A-Z0-9_]+")
    for top in ENV_SOURCES:
        p = os.path.join(root, top)
        files = [p] if os.path.isfile(p) else [
            os.path.join(d, f) for d, _, fs in os.walk(p) for f in fs]
        for f in files:
            try:
                with open(f, encoding="utf-8", errors="replace") as fh:
                    names.update(pat.findall(fh.read()))
            except OSError:
                pass
    return names


def env_names_documented(text):
    names = set()
    for line in text.split("\n"):
        if line.startswith("### ") or line.startswith("- `"):
            names.update(re.findall(r"`([A-Z][A-Z0-9_]*)`", line))
    return names


def main():
    ap = argparse.ArgumentParser(add_help=True)
    ap.add_argument("--bin")
    ap.add_argument("--tables")
    ap.add_argument("--root", default=os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
    ap.add_argument("--out")
    ap.add_argument("--check", action="store_true")
    ap.add_argument("--check-env", action="store_true")
    a = ap.parse_args()
    root = a.root

    def read(rel):
        with open(os.path.join(root, rel), encoding="utf-8") as f:
            return f.read()

    if a.check_env:
        missing = sorted(env_names_in_source(root) - env_names_documented(read(ENV_MD)))
        if missing:
            print("%s lacks %s (used in the sources): document them there" % (ENV_MD, ", ".join(missing)))
            return 1
        return 0
    if bool(a.bin) == bool(a.tables):
        ap.error("give one of --bin and --tables")
    if a.bin:
        r = subprocess.run([a.bin, "help", "--reference"], stdout=subprocess.PIPE,
                           stderr=subprocess.PIPE, universal_newlines=True,
                           env=dict(os.environ, HEADROOM_PLUGIN_PATH=""))
        if r.returncode:
            sys.stderr.write("gen-docs: %s help --reference: exit %d: %s" % (a.bin, r.returncode, r.stderr))
            return 2
        doc = json.loads(r.stdout)
    else:
        with open(a.tables, encoding="utf-8") as f:
            doc = json.load(f)
    version = read("VERSION").strip()
    files = {
        CLI_MD: render_md(doc, version),
        MAN: render_man(doc, version, read(MAN_IN), read(ENV_MD)),
    }
    if a.check:
        stale = 0
        for rel, text in files.items():
            try:
                now = read(rel)
            except OSError:
                now = None
            if now != text:
                print("%s is stale: run make docs" % rel)
                stale = 1
        return stale
    for rel, text in files.items():
        path = os.path.join(a.out or root, rel)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        tmp = path + ".tmp"
        with open(tmp, "w", encoding="utf-8") as f:
            f.write(text)
        os.replace(tmp, path)
    return 0


if __name__ == "__main__":
    sys.exit(main())
