# sh_types.sh — element types from the command line: --dtype/--kv-dtype on run, check,
# sweep, decode-loop; dtype/kv_dtype axes in configs; types in names, fields and CSV
# columns; results from before the types (tests/fixtures/pre-dtype) still read as f32.
SUITE=types
. "$(dirname "$0")/lib.sh"
FIX=$(cd "$(dirname "$0")/fixtures/pre-dtype" && pwd)

expect run_explicit_f32 0 'check: pass .*\[' -- $B run --kernel flash --seq 32 --dtype f32 --kv-dtype f32 --reps 2 --min-time 0.001 --warmup 0 --check --no-probe
expect run_json_types 0 '"dtype":[[:space:]]*"f32"' -- $B run --kernel naive --seq 16 --reps 2 --min-time 0.001 --warmup 0 --no-probe --format json
expect run_csv_columns 0 'max_rel_err,dtype,kv_dtype,path' -- $B run --kernel naive --seq 16 --reps 2 --min-time 0.001 --warmup 0 --no-probe --format csv
expect list_types 0 'types f32, path ' -- $B list
expect list_json_types 0 '"kv_dtypes":[[:space:]]*\["f32"\]' -- $B list --format json
expect check_filter_f32 0 'naive +f32 +T1 .*\[' -- $B check --kernel naive --quick --dtype f32
expect decode_loop_format_csv 0 ',f32,q4_0,0\.[0-9]+,0$' -- $B decode-loop --layers 1 --heads 2 --kv-heads 1 --d-head 32 --prompt 16 --tokens 2 --rows 1 --kv-dtype q4_0 --check --format csv
expect decode_loop_format_none 0 ',f32,f32,,0$' -- $B decode-loop --layers 1 --heads 2 --kv-heads 1 --d-head 32 --prompt 16 --tokens 2 --rows 1 --format csv
expect decode_loop_format_json 0 '"format_max_rel":' -- $B decode-loop --layers 1 --heads 2 --kv-heads 1 --d-head 32 --prompt 16 --tokens 2 --kv-dtype bf16 --check --format json
expect decode_loop_f32 0 'KV cache .* \(f32\) at the end; path ' -- $B decode-loop --layers 1 --heads 2 --d-head 32 --prompt 8 --tokens 2 --kv-dtype f32

# flash and gqa on bf16/f16 operands (prefill): the path that ran is named, tdpbf16ps where
# the build and the CPU have AMX, vdpbf16ps where they have AVX512-BF16, the conversion to
# fp32 elsewhere; HEADROOM_FLASH_PATH=convert|bf16dot|amx forces one, and a forced path
# the level lacks (--isa avx2 has neither) refuses the kernel: one line, exit 2.
expect flash_list_types 0 'types f32,bf16,f16, kv f32,bf16,f16' -- $B list
expect flash_bf16_check 0 'flash +bf16 +T1 +[0-9]+ pass +0 warn +0 fail .*\[(amx tdpbf16ps|avx512-bf16 vdpbf16ps|convert to fp32)' -- $B check --kernel flash --quick --dtype bf16 --threads 1
expect gqa_f16_run 0 'check: pass .*convert to fp32 in packing' -- $B run --kernel gqa --heads 4 --kv-heads 2 --seq 40 --d-head 24 --causal --dtype f16 --reps 2 --min-time 0.001 --warmup 0 --check --no-probe
expect flash_forced_convert 0 'bf16 +convert to fp32 in packing' -- env HEADROOM_FLASH_PATH=convert $B list
if $B list | grep -Eq '^  avx2 +runs on this CPU'; then
    expect flash_forced_amx_avx2 2 '^headroom run: kernel flash cannot run this shape: HEADROOM_FLASH_PATH=amx: the avx2 level has no AMX code' -- env HEADROOM_FLASH_PATH=amx $B --isa avx2 run --kernel flash --dtype bf16 --seq 32 --reps 1 --min-time 0 --no-probe
    expect gqa_forced_bf16dot_avx2 2 'kernel gqa cannot run this shape: HEADROOM_FLASH_PATH=bf16dot: the avx2 level has no AVX512-BF16 code' -- env HEADROOM_FLASH_PATH=bf16dot $B --isa avx2 run --kernel gqa --dtype bf16 --seq 32 --reps 1 --min-time 0 --no-probe
    expect flash_avx2_list_bf16 0 'bf16 +convert to fp32 in packing' -- $B --isa avx2 list
fi
expect flash_forced_bogus 2 'HEADROOM_FLASH_PATH=tiles: not one of convert, bf16dot, amx' -- env HEADROOM_FLASH_PATH=tiles $B run --kernel flash --seq 32 --reps 1 --min-time 0 --no-probe
if [ "$($B list | grep -c 'amx tdpbf16ps')" -gt 0 ]; then
    expect flash_amx_run 0 'check: pass .*amx tdpbf16ps' -- $B run --kernel flash --heads 4 --seq 77 --d-head 40 --causal --dtype bf16 --reps 2 --min-time 0.001 --warmup 0 --check --no-probe
    expect flash_forced_bf16dot 0 'check: pass .*vdpbf16ps' -- env HEADROOM_FLASH_PATH=bf16dot $B run --kernel flash --heads 4 --seq 77 --d-head 40 --dtype bf16 --reps 2 --min-time 0.001 --warmup 0 --check --no-probe
else
    skip flash_amx_run "no AMX path on this CPU/OS/build"
fi
# decode's path per cache type: one query row stands for it; q8_0 names its int8 path
# where the CPU has VNNI (at the avx2 level without AVX-VNNI the vpmaddubsw one), the
# conversion one otherwise or when forced.
expect decode_list_paths 0 'f32/kv=q8_0 +[a-z0-9]+ (.*vpdpbusd q8_0.*Q as q8_0|.*vpmaddubsw.*q8_0.*Q as q8_0|q8_0 vpmovsxbd|q8_0 scalar convert)' -- $B list
expect decode_forced_convert 0 'f32/kv=q4_0 +[a-z0-9]+ q4_0 nibble unpack in registers' -- env HEADROOM_DECODE_PATH=convert $B list
expect decode_bad_path_env 2 'HEADROOM_DECODE_PATH must be auto, convert, int8, bf16dot or emu' -- env HEADROOM_DECODE_PATH=fast $B run --kernel decode --seq 1 --seq-kv 64 --d-head 32 --kv-dtype q8_0 --reps 1 --no-probe
# q8_0 and q4_0 on AVX2 without AVX-VNNI: the int8 step by vpmaddubsw + vpmaddwd (decode_i8.c's decode_i8e copy),
# taken there by default and forced anywhere the avx2 level runs by HEADROOM_DECODE_PATH=emu;
# q8_0 by the sign trick (K signed), its P·V weights within 127 (the path says s8).
if $B list | grep -Eq '^  avx2 +runs on this CPU'; then
    expect decode_emu_list 0 'f32/kv=q4_0 +avx2 int8 vpmaddubsw\+vpmaddwd q4_0 nibbles, Q as q8_0, P·V vpmaddubsw\+vpmaddwd \(P·dv s8 per 32 keys\)' -- env HEADROOM_DECODE_PATH=emu $B --isa avx2 list
    expect decode_emu_check 0 'decode +kv=q4_0 +T1,2,3 +[0-9]+ pass +0 warn +0 fail .*vpmaddubsw' -- env HEADROOM_DECODE_PATH=emu $B --isa avx2 check --kernel decode --kv-dtype q4_0
    expect decode_emu_check_pv_fp32 0 'decode +kv=q4_0 +T1,2,3 +[0-9]+ pass +0 warn +0 fail .*vpmaddubsw.*P·V FMA' -- env HEADROOM_DECODE_PATH=emu HEADROOM_DECODE_PV=fp32 $B --isa avx2 check --kernel decode --kv-dtype q4_0
    # its rows are placed against the vpmaddubsw triple's own roof (avx2_maddubs; with the
    # fp32 P·V that roof and avx2's FMA in series): the probe names the loop it ran
    expect decode_emu_roof 0 'probe: compute, .*\(avx2_maddubs loop\)' -- env HEADROOM_DECODE_PATH=emu $B --isa avx2 run --kernel decode --heads 4 --kv-heads 2 --seq 1 --seq-kv 256 --d-head 64 --kv-dtype q4_0 --reps 1
    expect decode_emu_q8_list 0 'f32/kv=q8_0 +avx2 int8 vpmaddubsw\+vpmaddwd q8_0 \(\|K\| by Q with K.s signs\), Q as q8_0, P·V vpmaddubsw\+vpmaddwd \(P·dv s8 per 32 keys\)' -- env HEADROOM_DECODE_PATH=emu $B --isa avx2 list
    expect decode_emu_q8_check 0 'decode +kv=q8_0 +T1,2,3 +[0-9]+ pass +0 warn +0 fail .*vpmaddubsw.*q8_0' -- env HEADROOM_DECODE_PATH=emu $B --isa avx2 check --kernel decode --kv-dtype q8_0
    expect decode_emu_q8_rows_check 0 'decode +kv=q8_0 +T1,2,3 +[0-9]+ pass +0 warn +0 fail .*vpmaddubsw.*q8_0' -- env HEADROOM_DECODE_PATH=emu HEADROOM_DECODE_KV=rows $B --isa avx2 check --kernel decode --kv-dtype q8_0
else
    skip decode_emu_list "the avx2 level does not run here"
fi
# the vpmaddubsw step exists at the avx2 level only: forced elsewhere, refused in one line (exit 2)
if $B list | grep -Eq '^  generic +runs on this CPU'; then
    expect decode_emu_generic_refused 2 'HEADROOM_DECODE_PATH=emu: only the avx2 level has the vpmaddubsw step' -- env HEADROOM_DECODE_PATH=emu $B --isa generic run --kernel decode --seq 1 --seq-kv 64 --d-head 32 --kv-dtype q8_0 --reps 1 --no-probe
else
    skip decode_emu_generic_refused "this binary has no generic level (a fixed-level build)"
fi
# HEADROOM_DECODE_PF: the block steps' prefetches into L1 (the _l1 copies) or L2, named in the path
expect decode_pf_l1_list 0 'f32/kv=f16 +[a-z0-9]+ f16 .*, prefetch into L1$' -- env HEADROOM_DECODE_PF=l1 $B list
expect decode_pf_l2_list 0 'f32/kv=f16 +[a-z0-9]+ f16 [^,]*, fp32 FMA$' -- env HEADROOM_DECODE_PF=l2 $B list
expect decode_pf_l1_check 0 'decode +kv=q8_0 +T1,2,3 +[0-9]+ pass +0 warn +0 fail .*prefetch into L1' -- env HEADROOM_DECODE_PF=l1 $B check --kernel decode --kv-dtype q8_0
expect decode_bad_pf_env 2 'HEADROOM_DECODE_PF must be auto, l1 or l2' -- env HEADROOM_DECODE_PF=l3 $B run --kernel decode --seq 1 --seq-kv 64 --d-head 32 --reps 1 --no-probe
expect decode_bad_q_env 2 'HEADROOM_DECODE_Q must be auto or exact' -- env HEADROOM_DECODE_Q=fast $B run --kernel decode --seq 1 --seq-kv 64 --d-head 32 --kv-dtype bf16 --reps 1 --no-probe
expect flash_bf16_refuses_q8 2 'kernel flash cannot run this shape: no q8_0 K/V cache \(--kv-dtype\)' -- $B run --kernel flash --dtype bf16 --kv-dtype q8_0

# A sweep over dtype and kv_dtype: names carry the types; points no kernel of this build
# can run are skipped with the kernel's reason; d off the q8_0 block is an invalid shape.
cfg=$TMP/types.ini
sweep_config "$cfg" kernels=naive seq=16 "d_head=32, 40" "dtype=f32, bf16" "kv_dtype=f32, q8_0" threads= reps=2 \
    probe=false
expect sweep_dry_run 0 '8 points: 2 to run, 6 skipped' -- $B sweep "$cfg" --dry-run
expect sweep_names 0 'naive/B1/H2/G2/N16/M16/d32/bf16/kv=q8_0/full/bhnd/T1/bq0/bkv0/pass1 +not applicable: no bf16 Q/K/V \(--dtype\)' -- $B sweep "$cfg" --dry-run
expect sweep_invalid_d 0 'd40/kv=q8_0/.* invalid shape: --kv-dtype: q8_0 stores blocks of 32' -- $B sweep "$cfg" --dry-run
expect sweep_flag_replaces 0 '2 points: 0 to run, 2 skipped' -- $B sweep "$cfg" --dry-run --kv-dtype q4_0 --dtype bf16
expect sweep_runs 0 '' -- $B sweep "$cfg" --out "$TMP/sw" --filter naive
expect sweep_csv_columns 0 'dtype,kv_dtype,path' -- head -n 1 "$TMP/sw/results.csv"
expect sweep_rows_types 0 '"kv_dtype":[[:space:]]*"f32"' -- cat "$TMP/sw/rows.jsonl"

# Results written before the types: compare matches their rows by name with today's
# (f32 names are unchanged), report reads them as f32.
sweep_config "$TMP/tiny.ini" "kernels=naive, flash" seq=16 d_head=8 threads= reps=2 check=true probe=false
expect sweep_today 0 '' -- $B sweep "$TMP/tiny.ini" --out "$TMP/today"
expect compare_pre_dtype 0 '' -- sh -c "$B compare '$FIX/results.json' '$TMP/today/results.json' --threshold 1000 --format json > '$TMP/cmp.json'; r=\$?; [ \$r -le 1 ] || [ \$r -eq 3 ]"
if command -v python3 > /dev/null; then
    expect compare_pre_dtype_matched 0 'matched [12]' -- python3 -c "
import json
d = json.load(open('$TMP/cmp.json'))
names = [r['name'] for r in d['rows']]
# naive runs T1 everywhere (flash's T follows the CPUs of the machine that wrote it)
assert 'naive/B1/H2/G2/N16/M16/d8/full/bhnd/T1' in names, names
assert not [n for n in d['only_in_new'] + d['only_in_base'] if n.startswith('naive/')], d
print('matched', len(names))"
else
    skip compare_pre_dtype_matched "no python3"
fi
expect report_pre_dtype 0 'B1 H2/2 N16x16 d8' -- $B report "$FIX/results.json" --no-charts --out "$TMP/rep" --format markdown

finish
