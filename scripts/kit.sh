#!/bin/bash
# kit.sh — headroom measured on a machine that has none of its build dependencies (a lent
# machine without a compiler's packages or network): build a self-contained kit here,
# copy the checkout with it there, run it there.
#
#   scripts/kit.sh build     here: build/kit/{portable,avx2,avx512}: the portable binary
#                            (runtime ISA dispatch) and the two fixed levels' unit tests,
#                            without OpenBLAS, with libcjson and libgomp beside them
#                            (glibc 2.34 or later there), and decode-cputime per level
#   scripts/kit.sh run [DIR] there, in stages, one of each first and then more decode
#                            passes while the budget lasts:
#                              tests     the machine (lscpu), every unit test at every
#                                        level and `check --quick` (best level; decode
#                                        and flash at avx2), in parallel
#                              roofline  `roofline --threads 1,2`
#                              decode    decode's rows, L16384 and L4096 (decode-cputime:
#                                        avx512 every type, avx2 f32/f16/q8_0/q4_0, and
#                                        q8_0/q4_0 on avx2's conversion path as avx2cvt),
#                                        with the triad and read-only stream; one pass,
#                                        then passes 2..KIT_PASSES after the others
#                              prefill   six prefill shapes, both levels, 1 pass
#                              dram      avx512 every type at L65536 (the cache past most
#                                        L3s) with the triad, 1 pass
#                            Raw files and summaries in DIR (/tmp/kit-out). Env:
#                            KIT_STAGES (all five), KIT_PASSES (3), KIT_BUDGET (seconds
#                            for the whole run, 0 = none: a stage that would not fit is
#                            skipped with a line saying so; the decode passes stop),
#                            OUT (a device machine's folder: DIR is tarred into
#                            $OUT/kit.tgz at the end, whatever stopped the run).
#                            Whole, 6-9 minutes on 16 cores; `KIT_BUDGET=420` fits a
#                            7-minute device call.
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
K=$here/build/kit
case ${1:-} in
build)
  cd "$here"
  make -s -j"$(nproc)" BLAS=0 BUILDDIR="$K/portable" "$K/portable/headroom" "$K/portable/unit_tests"
  for l in avx2 avx512; do
    make -s -j"$(nproc)" BLAS=0 ISA=$l BUILDDIR="$K/$l" "$K/$l/unit_tests"
    a=$([ $l = avx2 ] && echo x86-64-v3 || echo x86-64-v4)
    gcc -std=c11 -O3 -march=$a -mtune=generic -fopenmp $(find kernels -type d -printf '-I%p ') -Iharness/base -I"$K/$l" -D_GNU_SOURCE \
      scripts/decode-cputime.c $(find "$K/$l"/kernels -name '*.o') "$K/$l"/harness/base/*.o -o "$K/$l/decode-cputime" \
      $(pkg-config --libs libcjson) -lm
  done
  mkdir -p "$K/lib"
  for so in libcjson.so.1 libgomp.so.1; do
    cp -L "$(gcc -print-file-name=$so | grep / || ldconfig -p | awk -v s=$so '$1==s{print $NF; exit}')" "$K/lib/"
  done
  du -sh "$K";;
run)
  O=${2:-/tmp/kit-out}; mkdir -p "$O"
  export LD_LIBRARY_PATH=$K/lib
  P=$K/portable/headroom
  STAGES=" ${KIT_STAGES:-tests roofline decode prefill dram} " PASSES=${KIT_PASSES:-3} BUDGET=${KIT_BUDGET:-0}
  for x in $STAGES; do case $x in tests|roofline|decode|prefill|dram) ;;
    *) echo "kit: KIT_STAGES: unknown stage $x (tests, roofline, decode, prefill, dram)" >&2; exit 2;; esac; done
  case $PASSES$BUDGET in *[!0-9]*) echo "kit: KIT_PASSES and KIT_BUDGET are whole numbers" >&2; exit 2;; esac
  t0=$(date +%s)
  pack() { if [ -n "${OUT:-}" ]; then tar czf "$OUT/kit.tgz" -C "$(dirname "$O")" "$(basename "$O")"; fi; }
  trap pack EXIT
  trap 'exit 143' TERM INT # a timeout's signal still packs
  left() { if [ "$BUDGET" -gt 0 ]; then echo $((BUDGET - $(date +%s) + t0)); else echo 999999; fi; }
  # stage NAME SECONDS: asked for, and SECONDS (its usual time on 16 cores) left in the budget
  stage() {
    case $STAGES in *" $1 "*) ;; *) return 1;; esac
    [ "$(left)" -ge "$2" ] && return 0
    echo "kit: $1 skipped: $(left) s of KIT_BUDGET=$BUDGET left, it takes ~$2" | tee -a "$O/skipped.txt"; return 1
  }
  # row P LEVEL KV L T [REPS]: one decode-cputime row (KV triad or load: the streams)
  row() { echo "$1 $2 $3 $4 $5 $("$K/${2%cvt}/decode-cputime" "$3" "$4" "$5" "${6:-11}" | awk '{print $2}')"; }
  summary() { python3 "$O/summary.py" "$1" || echo "no python3: raw rows in $1"; }
  decode_pass() {
    for T in 1 2; do for x in triad load; do row "$1" avx512 $x 0 $T; done; done
    for c in f32:16384:1 f16:16384:1 bf16:16384:1 bf16/bf16:16384:1 q8_0:16384:1 q4_0:16384:1 f32:4096:1 \
             f32:16384:2 f16:16384:2 bf16:16384:2 bf16/bf16:16384:2 q8_0:16384:2 q4_0:16384:2 f32:4096:2; do
      IFS=: read -r kv L T <<<"$c"
      row "$1" avx512 "$kv" "$L" "$T"
      [ "$L" = 16384 ] || continue
      case $kv in f32|f16|q8_0|q4_0) row "$1" avx2 "$kv" "$L" "$T";; esac
      # q8_0/q4_0 at avx2 again on the conversion path (avx2cvt, with its own f32): the
      # int8 step (vpmaddubsw on a CPU without AVX-VNNI) against it where it runs
      case $kv in f32|q8_0|q4_0) HEADROOM_DECODE_PATH=convert row "$1" avx2cvt "$kv" "$L" "$T";; esac
    done
  }
  { date -u; lscpu; free -g; gcc --version 2>&1 | head -1; } > "$O/machine.txt" 2>&1
  grep -E 'Model name|CPU family|Model:|^Core|L1d|L2|L3' "$O/machine.txt"
  sed -n "/^python3 - \"\$raw\" <<'PY'/,/^PY/p" "$here/scripts/decode-cputime.sh" | sed '1d;$d' > "$O/summary.py"
  if stage tests 60; then
    for b in portable avx2 avx512; do ( "$K/$b/unit_tests" > "$O/unit-$b.txt" 2>&1; echo "rc $?" >> "$O/unit-$b.txt" ) & done
    ( "$P" check --quick > "$O/check.txt" 2>&1; echo "rc $?" >> "$O/check.txt" ) &
    for k in decode flash; do ( "$P" --isa avx2 check --quick --kernel $k > "$O/check-avx2-$k.txt" 2>&1; echo "rc $?" >> "$O/check-avx2-$k.txt" ) & done
    wait
    for f in "$O"/unit-*.txt "$O"/check*.txt; do echo "${f##*/}: $(grep -E 'passed|^check:' "$f" | tail -1) ($(tail -1 "$f"))"; done
  fi
  export OMP_WAIT_POLICY=passive OMP_PROC_BIND=close OMP_PLACES=cores
  if stage roofline 30; then "$P" roofline --threads 1,2 --reps 5 --out "$O/ceilings.json" > "$O/roofline.txt" 2>&1; fi
  : > "$O/decode.raw"
  if stage decode 90; then decode_pass 1 >> "$O/decode.raw"; fi
  if stage prefill 150; then
    printf '#!/bin/sh\nexec %s --isa avx2 "$@"\n' "$P" > "$O/headroom-avx2"; chmod +x "$O/headroom-avx2"
    LOCK=$O/lock bash "$here/scripts/prefill-shapes.sh" 1 "$P" "$O/headroom-avx2" > "$O/prefill.txt" 2>&1
    grep -A30 '^medians' "$O/prefill.txt"
  fi
  if stage dram 120; then
    for T in 1 2; do
      row 1 avx512 triad 0 $T
      for kv in f32 f16 bf16 q8_0 q4_0; do row 1 avx512 $kv 65536 $T 7; done
    done > "$O/dram.raw"
    summary "$O/dram.raw" | tee "$O/dram.txt"
  fi
  for p in $(seq 2 "$PASSES"); do stage decode 90 || break; decode_pass "$p" >> "$O/decode.raw"; done
  if [ -s "$O/decode.raw" ]; then summary "$O/decode.raw" | tee "$O/decode.txt"; fi
  echo "kit: $(( $(date +%s) - t0 )) s; files in $O${OUT:+, tarred into $OUT/kit.tgz}";;
*) echo "usage: scripts/kit.sh build | run [DIR]" >&2; exit 2;;
esac
