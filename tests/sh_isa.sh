# sh_isa.sh — ISA levels from the command line: --isa (before or after the command, = form),
# HEADROOM_ISA, their errors, `list` and `--version`, each result's context, and the
# oracle on every level this CPU runs.
SUITE=isa
. "$(dirname "$0")/lib.sh"
RUN=(--seq 40 --heads 4 --kv-heads 2 --d-head 24 --reps 2 --min-time 0.001 --warmup 0 --no-probe)

levels=$(echo $($B list | sed -n '/^ISA levels in this binary/,$p' | awk 'NR > 1 {print $1}'))
runs=$(echo $($B list | sed -n '/^ISA levels in this binary/,$p' | awk 'NR > 1 && /runs on this CPU/ {print $1}'))
best=$($B list | sed -n '/^ISA levels in this binary/,$p' | awk '/running \(best for this CPU\)/ {print $1}')
expect list_levels 0 '^  (generic|avx2|avx512) +runs on this CPU' -- $B list
[ -n "$best" ] && ok best_is_running || fail best_is_running "no level marked running: $($B list | tail -4 | tr '\n' ' ')"
expect version_isa 0 "^isa +$best \(best for this CPU; built for [a-z0-9]+, levels " -- $B --version

expect unknown_flag 2 "^headroom: --isa: unknown ISA level 'avx9' \(generic, avx2, avx512\)$" -- $B --isa avx9 list
expect unknown_env 2 "^headroom: HEADROOM_ISA: unknown ISA level 'sse' " -- env HEADROOM_ISA=sse $B list
expect missing_value 2 '^headroom: --isa: expected a level' -- $B list --isa
expect flag_wins_over_env 0 "\(ISA: $best\)" -- env HEADROOM_ISA=avx9 $B --isa "$best" list
expect empty_env_ignored 0 "\(ISA: $best\)" -- env HEADROOM_ISA= $B list

for l in $runs; do
    expect "run_$l" 0 "check: pass .*\[$l" -- $B run --isa "$l" --kernel flash "${RUN[@]}" --causal --check
    expect "after_cmd_eq_$l" 0 "\(ISA: $l\)" -- $B list --isa="$l"
    expect "env_$l" 0 "path $l" -- env HEADROOM_ISA="$l" $B list
    expect "check_$l" 0 'decode +f32 .* 0 fail' -- $B --isa "$l" check --quick --kernel decode --dtype f32 --kv-dtype f32
    out=$($B --isa "$l" run --kernel gqa "${RUN[@]}" --format json 2>/dev/null)
    if printf '%s' "$out" | grep -q "\"isa\":[[:space:]]*\"$l\"" &&
        printf '%s' "$out" | grep -q '"isa_selected_by":[[:space:]]*"--isa"' &&
        printf '%s' "$out" | grep -q "\"isa_best\":[[:space:]]*\"$best\""; then
        ok "context_$l"
    else
        fail "context_$l" "context lacks isa $l / isa_selected_by --isa / isa_best $best"
    fi
done
# Each level's flash takes its own default tiles (256 keys a tile on AVX-512, 64 below):
# a tile file that misses the vector layer's level macros takes the generic ones.
for l in $runs; do
    want=64; [ "$l" = avx512 ] && want=256
    expect "flash_tile_$l" 0 "\"block_kv\":[[:space:]]*$want," -- $B --isa "$l" run --kernel flash --seq 256 --reps 1 --min-time 0.001 --warmup 0 --no-probe --format json --aggregates-only
done
# A level of the binary this CPU lacks (none on an AVX-512 machine) is refused in one line.
for l in $levels; do
    case " $runs " in *" $l "*) continue ;; esac
    expect "lacks_$l" 2 "^headroom: --isa: ISA level $l: this CPU lacks " -- $B --isa "$l" list
done
# A fixed build has one level; the others are not built into it.
if [ "$(printf '%s\n' $levels | wc -l)" = 1 ]; then
    other=generic; [ "$levels" = generic ] && other=avx2
    expect fixed_build_refuses 2 "^headroom: --isa: ISA level $other is not built into this binary" -- $B --isa $other list
else
    expect portable_has_three 0 '' -- test "$(printf '%s ' $levels)" = "generic avx2 avx512 "
fi
# "--" ends the search: what follows is not taken for --isa.
expect double_dash_kept 2 "unexpected argument '--isa'" -- $B run --kernel flash "${RUN[@]}" -- --isa generic

exit $nfail
