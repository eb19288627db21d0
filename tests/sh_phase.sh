# sh_phase.sh — per-repetition probes, phase filter, interleaved sweeps and compare on the normalized metric, from the command line.
SUITE=phase
. "$(dirname "$0")/lib.sh"

RUN=("$HR_BIN" run --heads 2 --seq 64 --d-head 16 --threads 1 --reps 4 --min-time 0 --warmup 0)

expect probe_both 2 '--probe: not with --no-probe' -- "${RUN[@]}" --kernel flash --probe --no-probe
expect filter_needs_probe 2 '--phase-filter: needs the probes' -- "${RUN[@]}" --kernel flash --no-probe --phase-filter
expect threshold_range 2 '--phase-threshold' -- "${RUN[@]}" --kernel flash --phase-threshold 0
expect probe_kind_none 2 '--probe-kind: expected fma, bw or auto' -- "${RUN[@]}" --kernel flash --probe-kind none
expect plant_bad 2 'HEADROOM_PLANT_DELAY: expected a fraction' -- env HEADROOM_PLANT_DELAY=1.5 "${RUN[@]}" --kernel flash
expect table_line 0 '^probe: compute, concurrent ceiling [0-9.e+]+ GFLOP/s \([a-z0-9_]+ loop\), frac_of_ceiling [0-9.]+ \(medians\); phase changes [0-9]+ of 4' \
    -- "${RUN[@]}" --kernel flash

"${RUN[@]}" --kernel flash --format json > "$TMP/flash.json" 2> /dev/null
"${RUN[@]}" --kernel flash --format json --no-probe > "$TMP/noprobe.json" 2> /dev/null
# decode over a cache past this machine's last-level cache (256 MiB, or twice the L3 the
# context reports where that is larger: VMs show up to 480 MiB), so the bandwidth probe.
# K + V = 2 * 8 heads * 32 d * 4 B = 2 KiB per key.
seqkv=131072
l3=$(python3 -c 'import json,sys; c=json.load(open(sys.argv[1]))["context"]["caches"]; print(max([x["size"] for x in c if x["level"] == 3] or [0]))' "$TMP/flash.json" 2>/dev/null || echo 0)
while [ $((seqkv * 2048)) -le $((2 * l3)) ]; do seqkv=$((seqkv * 2)); done
"$HR_BIN" run --kernel decode --heads 8 --seq 1 --seq-kv "$seqkv" --d-head 32 --threads 1 --reps 4 --min-time 0 \
    --warmup 0 --format json > "$TMP/decode.json" 2> /dev/null
"${RUN[@]}" --kernel flash --format json --probe-kind bw > "$TMP/forcebw.json" 2> /dev/null
if command -v python3 > /dev/null; then
    # rows.py FILE CODE: runs CODE with d (the document), it (iteration rows), ag (aggregates).
    cat > "$TMP/rows.py" <<'PY'
import json, sys
d = json.load(open(sys.argv[1])); it = [b for b in d['benchmarks'] if b['run_type'] == 'iteration']
ag = {b['aggregate_name']: b for b in d['benchmarks'] if b['run_type'] == 'aggregate'}
exec(sys.argv[2])
PY
    expect per_rep_frac 0 '^fma 4 ok' -- python3 "$TMP/rows.py" "$TMP/flash.json" "
assert all(0 < b['frac_of_ceiling'] and b['probe_gflops'] > 0 and b['phase_change'] in (True, False) for b in it)
fr = sorted(b['frac_of_ceiling'] for b in it)
assert abs(ag['median']['frac_of_ceiling'] - (fr[1] + fr[2]) / 2) < 1e-12 * fr[2]
print(it[0]['probe_kind'], len(it), 'ok')"
    expect no_probe_fields 0 '^none' -- python3 "$TMP/rows.py" "$TMP/noprobe.json" "
assert not any('frac_of_ceiling' in b or 'probe_kind' in b for b in d['benchmarks']); print('none')"
    expect decode_bw 0 '^bw probe_gbs' -- python3 "$TMP/rows.py" "$TMP/decode.json" "
assert all('probe_gbs' in b and 'probe_gflops' not in b for b in it); print(it[0]['probe_kind'], 'probe_gbs')"
    expect forced_bw 0 '^bw' -- python3 "$TMP/rows.py" "$TMP/forcebw.json" "print(it[0]['probe_kind'])"
else
    skip per_rep_frac "no python3"
fi

# compare on the normalized metric sees one sample per repetition (4/4), not one copied value.
expect compare_reps 0 ' 4/4  same' -- "$HR_BIN" compare "$TMP/flash.json" "$TMP/flash.json" --metric normalized
expect compare_no_counter 2 "has no 'frac_of_ceiling' counter" -- "$HR_BIN" compare "$TMP/noprobe.json" \
    "$TMP/flash.json" --metric normalized

# Sweeps: interleaved rounds over every point of the sweep; config keys and flags.
cfg=$TMP/il.ini
sweep_config "$cfg" "kernels=naive, flash, simd" "seq=32, 64" min_time=0 passes=2
expect sweep_interleaved 0 '12 rows \(12 new' -- "$HR_BIN" sweep "$cfg" --out "$TMP/il" --check
if command -v python3 > /dev/null; then
    expect sweep_fields 0 '^interleave True 12 (fma|bw)$' -- python3 -c "
import json; d = json.load(open('$TMP/il/results.json')); it = [b for b in d['benchmarks'] if b['run_type'] == 'iteration']
assert {b['interleaved'] for b in it} == {12}, {b.get('interleaved') for b in it}  # the whole sweep
assert len(it) == 36 and all('frac_of_ceiling' in b for b in it)
print('interleave', d['sweep']['interleave'], it[0]['interleaved'], d['sweep']['probe'] == 'auto' and it[0]['probe_kind'])"
else
    skip sweep_fields "no python3"
fi
expect sweep_resume 0 '12 rows \(0 new, 12 resumed\)' -- "$HR_BIN" sweep --resume "$TMP/il"
expect sweep_sequential 0 '12 rows' -- "$HR_BIN" sweep "$cfg" --out "$TMP/seq" --no-interleave --no-probe
if command -v python3 > /dev/null; then
    expect sweep_seq_fields 0 '^plain' -- python3 -c "
import json; d = json.load(open('$TMP/seq/results.json'))
assert not any('interleaved' in b or 'frac_of_ceiling' in b for b in d['benchmarks'])
assert d['sweep']['interleave'] is False and d['sweep']['probe'] == 'none'; print('plain')"
else
    skip sweep_seq_fields "no python3"
fi
expect sweep_filter_noprobe 2 '--phase-filter: needs the probes' -- "$HR_BIN" sweep "$cfg" --out "$TMP/x" --no-probe --phase-filter
printf '[sweep]\nkernels = flash\ninterleave = sometimes\n' > "$TMP/bad.ini"
expect sweep_bad_key 2 "bad.ini:3: interleave: 'sometimes'" -- "$HR_BIN" sweep "$TMP/bad.ini"
# The machine gave the run less than asked: the in-run FMA probe far below the ceiling saved
# at the same thread count (a ceilings file scaled up 1000x reads as a machine 1000x faster
# than this one), and no note against one scaled down.
if command -v python3 > /dev/null; then
    mach=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["context"]["machine"])' "$TMP/flash.json")
    "$HR_BIN" roofline --quick --threads 1 --out "$TMP/c1.json" > /dev/null 2>&1
    for f in up:1000 down:0.001; do
        mkdir -p "$TMP/res-${f%%:*}/$mach"
        python3 - "$TMP/c1.json" "${f#*:}" > "$TMP/res-${f%%:*}/$mach/ceilings.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1])); k = float(sys.argv[2]); d['quick'] = False
for row in d['ceilings']:
    for key, v in row.items():
        if key.startswith(('fma_gflops', 'bf16_gflops', 'int8_gops')):
            row[key] = {n: x * k for n, x in v.items()}
print(json.dumps(d))
PY
    done
    expect short_note 0 'flash/.*T1: probe at [0-9]+% of the [a-z0-9_]+ ceiling saved for 1 thread \([0-9.e+]+ GFLOP/s\): the run had less of the machine than asked' \
        -- env HEADROOM_RESULTS="$TMP/res-up" "${RUN[@]}" --kernel flash
    expect short_note_sweep 0 'headroom sweep: warning: flash/.*: probe at [0-9]+% of the' \
        -- env HEADROOM_RESULTS="$TMP/res-up" "$HR_BIN" sweep "$cfg" --out "$TMP/short" --filter flash --reps 2
    expect_not() { local n=$1; shift 2; if "$@" 2>&1 | grep -q 'had less of the machine'; then fail "$n" "noted"; else ok "$n"; fi; }
    expect_not short_note_not_below -- env HEADROOM_RESULTS="$TMP/res-down" "${RUN[@]}" --kernel flash
    expect_not short_note_no_probe -- env HEADROOM_RESULTS="$TMP/res-up" "${RUN[@]}" --kernel flash --no-probe
else
    skip short_note "no python3"
fi
finish
