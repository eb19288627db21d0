#!/bin/bash
# kit.sh — headroom measured on a machine that has none of its build dependencies (a lent
# machine without a compiler's packages or network): build a self-contained kit here,
# copy the checkout with it there, run it there.
#
#   scripts/kit.sh build     here: build/kit/{portable,avx2,avx512}: the portable binary
#                            (runtime ISA dispatch) and the two fixed levels' unit tests,
#                            without OpenBLAS, with libcjson/libinih/libgomp beside them
#                            (glibc 2.34 or later there), and decode-cputime per level
#   scripts/kit.sh run [OUT] there: the machine (lscpu), every unit test at every level and
#                            `check --quick` (best level; decode and flash at avx2) in
#                            parallel, then alone: `roofline --threads 1,2`, issue 14's
#                            decode rows (3 passes, decode-cputime: avx512 every type,
#                            avx2 f32/f16/q8_0/q4_0, and q8_0/q4_0 on avx2's conversion
#                            path as avx2cvt) and issue 16's prefill shapes (1 pass,
#                            both levels); prints summaries, keeps the raw files in OUT
#                            ($OUT or /tmp/kit-out). Takes 6-9 minutes on 16 cores.
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
    gcc -std=c11 -O3 -march=$a -mtune=generic -fopenmp -Ikernels -Iharness/base -I"$K/$l" -D_GNU_SOURCE \
      scripts/decode-cputime.c "$K/$l"/kernels/*.o "$K/$l"/harness/base/*.o -o "$K/$l/decode-cputime" \
      $(pkg-config --libs libcjson inih) -lm
  done
  mkdir -p "$K/lib"
  for so in libcjson.so.1 libinih.so.1 libgomp.so.1; do
    cp -L "$(gcc -print-file-name=$so | grep / || ldconfig -p | awk -v s=$so '$1==s{print $NF; exit}')" "$K/lib/"
  done
  du -sh "$K";;
run)
  O=${2:-${OUT:-/tmp/kit-out}}; mkdir -p "$O"
  export LD_LIBRARY_PATH=$K/lib
  P=$K/portable/headroom
  { date -u; lscpu; free -g; gcc --version 2>&1 | head -1; } > "$O/machine.txt" 2>&1
  grep -E 'Model name|CPU family|Model:|^Core|L1d|L2|L3' "$O/machine.txt"
  for b in portable avx2 avx512; do ( "$K/$b/unit_tests" > "$O/unit-$b.txt" 2>&1; echo "rc $?" >> "$O/unit-$b.txt" ) & done
  ( "$P" check --quick > "$O/check.txt" 2>&1; echo "rc $?" >> "$O/check.txt" ) &
  for k in decode flash; do ( "$P" --isa avx2 check --quick --kernel $k > "$O/check-avx2-$k.txt" 2>&1; echo "rc $?" >> "$O/check-avx2-$k.txt" ) & done
  wait
  for f in "$O"/unit-*.txt "$O"/check*.txt; do echo "${f##*/}: $(grep -E 'passed|^check:' "$f" | tail -1) ($(tail -1 "$f"))"; done
  export OMP_WAIT_POLICY=passive OMP_PROC_BIND=close OMP_PLACES=cores
  "$P" roofline --threads 1,2 --reps 5 --out "$O/ceilings.json" > "$O/roofline.txt" 2>&1
  for p in 1 2 3; do
    for T in 1 2; do for x in triad load; do
      echo "$p $x $x 0 $T $("$K/avx512/decode-cputime" $x 0 $T 11 | awk '{print $2}')"; done; done
    for c in f32:16384:1 f16:16384:1 bf16:16384:1 bf16/bf16:16384:1 q8_0:16384:1 q4_0:16384:1 f32:4096:1 \
             f32:16384:2 f16:16384:2 bf16:16384:2 bf16/bf16:16384:2 q8_0:16384:2 q4_0:16384:2 f32:4096:2; do
      IFS=: read -r kv L T <<<"$c"
      echo "$p avx512 $kv $L $T $("$K/avx512/decode-cputime" "$kv" "$L" "$T" 11 | awk '{print $2}')"
      case $kv in f32|f16|q8_0|q4_0) [ "$L" = 16384 ] &&
        echo "$p avx2 $kv $L $T $("$K/avx2/decode-cputime" "$kv" "$L" "$T" 11 | awk '{print $2}')";; esac
      # q8_0/q4_0 at avx2 again on the conversion path (avx2cvt, with its own f32): the
      # int8 step (vpmaddubsw on a CPU without AVX-VNNI) against it where it runs
      case $kv in f32|q8_0|q4_0) [ "$L" = 16384 ] &&
        echo "$p avx2cvt $kv $L $T $(HEADROOM_DECODE_PATH=convert "$K/avx2/decode-cputime" "$kv" "$L" "$T" 11 | awk '{print $2}')";; esac
    done
  done > "$O/decode.raw"
  sed -n "/^python3 - \"\$raw\" <<'PY'/,/^PY/p" "$here/scripts/decode-cputime.sh" | sed '1d;$d' > "$O/summary.py"
  python3 "$O/summary.py" "$O/decode.raw" | tee "$O/decode.txt" || echo "no python3: raw rows in $O/decode.raw"
  printf '#!/bin/sh\nexec %s --isa avx2 "$@"\n' "$P" > "$O/headroom-avx2"; chmod +x "$O/headroom-avx2"
  LOCK=$O/lock bash "$here/scripts/prefill-shapes.sh" 1 "$P" "$O/headroom-avx2" > "$O/prefill.txt" 2>&1
  grep -A30 '^medians' "$O/prefill.txt";;
*) echo "usage: scripts/kit.sh build | run [OUT]" >&2; exit 2;;
esac
