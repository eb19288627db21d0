#!/usr/bin/env python3
"""check-schema.py — validates headroom's JSON files against docs/reference/*.schema.json.

usage: scripts/check-schema.py [--fallback] SCHEMA FILE...
  SCHEMA     a schema's name (results, rows, wisdom, ceilings, compare, shard) or path,
             optionally with a part: results#/$defs/context (version --format json)
  FILE       a JSON file; a .jsonl file is validated line by line (a last line with no
             newline after it is a write cut short: left out with a note, as the readers do)
  --fallback use the validator below even when the jsonschema module is there (tests)

Prints one line per invalid file, "FILE[:LINE]: PATH: what is wrong", and exits 1 when any
is; 0 when all are valid. With the jsonschema module (Debian: python3-jsonschema) it
validates; without it, a small validator of the subset of JSON Schema these schemas use,
which refuses any keyword outside that subset, so a schema never passes by being half
read. A "$ref" to another schema file ("results.schema.json#/$defs/context") is inlined
before either validator sees the schema.
"""
import json
import os
import sys

SCHEMA_DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "docs", "reference")
# Keywords the fallback validator implements, and the ones that only annotate.
HANDLED = {"type", "properties", "required", "additionalProperties", "items", "enum", "const",
           "minimum", "maximum", "$ref", "$defs"}
ANNOTATIONS = {"$schema", "$id", "title", "description", "$comment"}


def pointer(doc, ptr):
    for part in ptr.lstrip("/").split("/") if ptr.strip("/") else []:
        doc = doc[part.replace("~1", "/").replace("~0", "~")]
    return doc


def load_schema(name):
    name, _, sub = name.partition("#")
    path = name if os.sep in name or name.endswith(".json") else os.path.join(SCHEMA_DIR, name + ".schema.json")
    with open(path, encoding="utf-8") as f:
        schema = json.load(f)
    if sub:  # a part of the schema: its local refs resolve against the whole file
        schema = {"$ref": "#" + sub, "$defs": schema.get("$defs", {})}
    base = os.path.dirname(path)
    cache = {}

    def inline(node):
        if isinstance(node, dict):
            ref = node.get("$ref")
            if isinstance(ref, str) and not ref.startswith("#"):
                fname, _, ptr = ref.partition("#")
                if fname not in cache:
                    with open(os.path.join(base, fname), encoding="utf-8") as f:
                        cache[fname] = json.load(f)
                # the target may hold local refs of its own file: inline those too
                return inline_local(pointer(cache[fname], ptr), cache[fname])
            return {k: inline(v) for k, v in node.items()}
        if isinstance(node, list):
            return [inline(v) for v in node]
        return node

    def inline_local(node, doc):
        if isinstance(node, dict):
            ref = node.get("$ref")
            if isinstance(ref, str) and ref.startswith("#"):
                return inline_local(pointer(doc, ref[1:]), doc)
            return {k: inline_local(v, doc) for k, v in node.items()}
        if isinstance(node, list):
            return [inline_local(v, doc) for v in node]
        return node

    return inline(schema)


def type_ok(v, t):
    if t == "object":
        return isinstance(v, dict)
    if t == "array":
        return isinstance(v, list)
    if t == "string":
        return isinstance(v, str)
    if t == "boolean":
        return isinstance(v, bool)
    if t == "null":
        return v is None
    if t == "integer":
        return isinstance(v, int) and not isinstance(v, bool) or isinstance(v, float) and v.is_integer()
    if t == "number":
        return isinstance(v, (int, float)) and not isinstance(v, bool)
    raise ValueError("schema: unknown type %r" % t)


def fallback_errors(v, s, root, path="$"):
    """The errors of value v against schema s: a list of "PATH: message"."""
    unknown = set(s) - HANDLED - ANNOTATIONS
    if unknown:
        raise ValueError("schema keyword(s) %s at %s: not in the fallback validator's subset"
                         % (", ".join(sorted(unknown)), path))
    if "$ref" in s:
        return fallback_errors(v, pointer(root, s["$ref"][1:]), root, path)
    errs = []
    if "type" in s:
        ts = s["type"] if isinstance(s["type"], list) else [s["type"]]
        if not any(type_ok(v, t) for t in ts):
            return ["%s: %s is not of type %s" % (path, json.dumps(v)[:60], " or ".join(ts))]
    if "const" in s and v != s["const"]:
        errs.append("%s: %s is not %s" % (path, json.dumps(v)[:60], json.dumps(s["const"])))
    if "enum" in s and not any(v == e and type(v) is type(e) or
                               (type_ok(v, "number") and type_ok(e, "number") and v == e) for e in s["enum"]):
        errs.append("%s: %s is not one of %s" % (path, json.dumps(v)[:60], json.dumps(s["enum"])))
    if type_ok(v, "number"):
        if "minimum" in s and v < s["minimum"]:
            errs.append("%s: %s is less than the minimum %s" % (path, v, s["minimum"]))
        if "maximum" in s and v > s["maximum"]:
            errs.append("%s: %s is more than the maximum %s" % (path, v, s["maximum"]))
    if isinstance(v, dict):
        for k in s.get("required", []):
            if k not in v:
                errs.append("%s: %r is a required property" % (path, k))
        props = s.get("properties", {})
        extra = s.get("additionalProperties", True)
        for k, x in v.items():
            if k in props:
                errs += fallback_errors(x, props[k], root, "%s.%s" % (path, k))
            elif extra is False:
                errs.append("%s: additional property %r is not allowed" % (path, k))
            elif isinstance(extra, dict):
                errs += fallback_errors(x, extra, root, "%s.%s" % (path, k))
    if isinstance(v, list) and "items" in s:
        for i, x in enumerate(v):
            errs += fallback_errors(x, s["items"], root, "%s[%d]" % (path, i))
    return errs


def make_validator(schema, use_fallback):
    if not use_fallback:
        try:
            import jsonschema
        except ImportError:
            use_fallback = True
    if use_fallback:
        fallback_errors({}, schema, schema)  # refuses a keyword outside the subset now
        return "fallback", lambda v: fallback_errors(v, schema, schema)
    cls = jsonschema.validators.validator_for(schema)
    cls.check_schema(schema)
    val = cls(schema)

    def errors(v):
        out = []
        for e in sorted(val.iter_errors(v), key=lambda e: list(e.absolute_path)):
            p = "$" + "".join("[%d]" % x if isinstance(x, int) else ".%s" % x for x in e.absolute_path)
            out.append("%s: %s" % (p, e.message[:200]))
        return out

    return "jsonschema", errors


def main(argv):
    use_fallback = "--fallback" in argv
    args = [a for a in argv if a != "--fallback"]
    if len(args) < 2:
        sys.stderr.write(__doc__)
        return 2
    schema = load_schema(args[0])
    _, errors = make_validator(schema, use_fallback)
    bad = 0
    for f in args[1:]:
        try:
            with open(f, encoding="utf-8") as fh:
                text = fh.read()
        except OSError as e:
            print("%s: cannot read (%s)" % (f, e.strerror))
            bad = 1
            continue
        docs = []
        try:
            if f.endswith(".jsonl"):
                lines = text.split("\n")
                if lines[-1].strip():  # no newline after it: a write cut short, as readers see it
                    print("%s:%d: torn last line left out (no newline after it)" % (f, len(lines)),
                          file=sys.stderr)
                lines = lines[:-1]
                docs = [("%s:%d" % (f, i + 1), json.loads(line))
                        for i, line in enumerate(lines) if line.strip()]
            else:
                docs = [(f, json.loads(text))]
        except ValueError as e:
            print("%s: not JSON (%s)" % (f, e))
            bad = 1
            continue
        for where, doc in docs:
            errs = errors(doc)
            if errs:
                bad = 1
                print("%s: %s%s" % (where, errs[0], " (and %d more)" % (len(errs) - 1) if len(errs) > 1 else ""))
    return bad


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
