#!/usr/bin/env bash
# sh_config.sh — config and model presets lines of any length (ini.c): a 5,000-character
# list, a long continued value, a long comment; the reader's rules (NUL, bad UTF-8) still
# refuse with file:line.
SUITE=config
source "$(dirname "$0")/lib.sh"

# A 5,600-character kernels list (each kernel named many times is measured once).
python3 - "$TMP" <<'PY'
import sys
t = sys.argv[1]
ks = ", ".join(["flash", "naive"] * 400)
head = "[sweep]\nheads = 2\nd_head = 16\nthreads = 1\n"
open(f"{t}/kernels.ini", "w").write(head + "kernels = " + ks + "\nseq = 16, 32\n")
# seq: 64 values padded to 5,000 characters with blanks between them.
seq = (" " * 80 + ",").join(str(16 * (i + 1)) for i in range(64))
open(f"{t}/seq.ini", "w").write(head + "kernels = naive\nseq = " + seq + "\n")
# A value continued over indented lines, 9,000 characters in all.
cont = ",\n".join("    " + ", ".join(["flash"] * 300) for _ in range(5))
open(f"{t}/cont.ini", "w").write(head + "kernels = naive,\n" + cont + "\nseq = 16\n")
# A 5,000-character inline comment and a 5,000-character description.
open(f"{t}/comment.ini", "w").write(head + "description = " + "d" * 5000 + "\nkernels = naive ; " + "c" * 5000 + "\nseq = 16\n")
# NUL and bad UTF-8 after a long line: still file:line.
open(f"{t}/nul.ini", "wb").write((head + "kernels = " + ks + "\nseq = 16\x00\n").encode())
open(f"{t}/utf8.ini", "wb").write((head + "kernels = " + ks + "\n").encode() + b"seq = 16 \xff\n")
# An unknown key 5,000 characters long: one line, the name cut short.
open(f"{t}/key.ini", "w").write(head + "k" * 5000 + " = 1\n")
# Model presets: a 5,000-character line.
open(f"{t}/models.ini", "w").write("[tiny]\nlayers = 2" + " " * 5000 + "\nd_model = 64\nheads = 4\nkv_heads = 2\nd_head = 16\n")
PY
expect kernels-5600 0 '^4 points: 4 to run' -- bash -c "$B sweep $TMP/kernels.ini --dry-run | tail -n 1"
expect seq-5000 0 '^64 points: 64 to run' -- bash -c "test \$(head -n 6 $TMP/seq.ini | tail -n 1 | wc -c) -gt 5000 && $B sweep $TMP/seq.ini --dry-run | tail -n 1"
expect continued-9000 0 '^2 points: 2 to run' -- bash -c "$B sweep $TMP/cont.ini --dry-run | tail -n 1"
expect comment-5000 0 '^1 points: 1 to run' -- bash -c "$B sweep $TMP/comment.ini --dry-run | tail -n 1"
expect nul-refused 2 "^headroom sweep: $TMP/nul.ini:6: NUL byte" -- $B sweep $TMP/nul.ini --dry-run
expect utf8-refused 2 "^headroom sweep: $TMP/utf8.ini:6: .*UTF-8" -- $B sweep $TMP/utf8.ini --dry-run
expect key-5000 2 "^headroom sweep: $TMP/key.ini:5: unknown key 'k+' in \[sweep\]\$" -- $B sweep $TMP/key.ini --dry-run
expect key-5000-short 0 '^1 [0-9]{3}$' -- bash -c "$B sweep $TMP/key.ini --dry-run 2>&1 | wc -lc | tr -s ' ' | sed 's/^ //'"
expect models-5000 0 '^tiny: 2 layers' -- $B kvcache --models $TMP/models.ini
finish
