# sh_plugin.sh — the plugin ABI end to end: examples/plugin built with only include/,
# loaded by --plugin and HEADROOM_PLUGIN_PATH into list, check, run, sweep; results name
# the plugin; hostile plugins (built here from inline C) each refused in one line naming
# the file and the rule, exit 2, with the other kernels still run.
SUITE=plugin
. "$(dirname "$0")/lib.sh"
CC=${CC:-cc}
P=$TMP/example_naive.so
RUN=(--seq 32 --heads 2 --reps 2 --min-time 0.001 --warmup 0 --no-probe)

# The example, exactly as a user builds it: its own Makefile, only the public header.
expect example_builds 0 '' -- make -s -C "$ROOT/examples/plugin" OUT="$TMP" CC="$CC"
expect header_alone 0 '' -- $CC -std=c99 -Wall -Wextra -Werror -pedantic -fsyntax-only -I "$ROOT/include" "$ROOT/examples/plugin/example_naive.c"
expect list_shows 0 'example_naive .*kv-per-head .*example plugin' -- $B list --plugin "$P"
expect list_origin 0 "plugin $P \(example 1\.0, ABI 1\.[0-9]+\)" -- $B list --plugin "$P"
expect list_json 0 '"library":[[:space:]]*"example"' -- $B list --plugin "$P" --format json
mkdir -p "$TMP/dir" && cp "$P" "$TMP/dir/" && printf 'not a plugin\n' > "$TMP/dir/README"
expect list_env_dir 0 'example_naive ' -- env HEADROOM_PLUGIN_PATH="$TMP/dir" $B list
expect list_env_file 0 'example_naive ' -- env HEADROOM_PLUGIN_PATH="::$P:" $B list
expect list_env_missing 2 "plugin $TMP/none: no such file \(HEADROOM_PLUGIN_PATH\)" -- env HEADROOM_PLUGIN_PATH="$TMP/none:$P" $B list
expect check_battery 0 'example_naive +f32 +T1 +[0-9]+ pass +0 warn +0 fail .*\[example\]' -- $B check --quick --kernel example_naive --plugin "$P"
expect run_checked 0 'check: pass' -- $B run --plugin "$P" --kernel example_naive "${RUN[@]}" --causal --kv-heads 1 --check
expect plugin_after_kernel 0 '' -- $B run --kernel example_naive "${RUN[@]}" --plugin="$P"
expect layer_runs 0 'check: pass' -- $B layer --plugin "$P" --kernel example_naive --seq 32 --d-model 64 --check --reps 1 --min-time 0 --warmup 0
expect decode_runs 0 'path example' -- $B decode-loop --plugin "$P" --kernel example_naive --layers 1 --heads 2 --d-head 32 --prompt 8 --tokens 2 --check
expect unknown_without 2 "unknown kernel 'example_naive'" -- $B run --kernel example_naive "${RUN[@]}"

# The results record which plugin ran: per row and in the context.
$B run --plugin "$P" --kernel example_naive "${RUN[@]}" --format json > "$TMP/run.json" 2>/dev/null
expect run_row_plugin 0 '"plugin_library":[[:space:]]*"example"' -- cat "$TMP/run.json"
expect run_row_version 0 '"plugin_version":[[:space:]]*"1\.0"' -- cat "$TMP/run.json"
expect run_context 0 '"plugins":' -- cat "$TMP/run.json"
cat > "$TMP/p.ini" <<'EOF'
[sweep]
kernels = naive, example_naive
heads = 2
seq = 16, 33
causal = false, true
reps = 2
min_time = 0.001
warmup = 0
probe = false
EOF
expect sweep_runs 0 '' -- $B sweep "$TMP/p.ini" --plugin "$P" --out "$TMP/sw"
expect sweep_rows 0 "\"plugin\":[[:space:]]*\"$P\"" -- cat "$TMP/sw/rows.jsonl"
expect sweep_context 0 '"library":[[:space:]]*"example"' -- cat "$TMP/sw/results.json"
sed 's/^kernels = .*/kernels = all/' "$TMP/p.ini" > "$TMP/all.ini"
expect sweep_all 0 'example_naive/B1/H2/G2/N33' -- env HEADROOM_PLUGIN_PATH="$P" $B sweep "$TMP/all.ini" --dry-run
expect compare_reads 0 '' -- $B compare "$TMP/sw/results.json" "$TMP/sw/results.json"

# Hostile plugins: each a one-line refusal naming the file and the rule, exit 2; the
# built-in kernels (and the good plugin) still run.
so() { # so NAME C-SOURCE: builds $TMP/NAME.so
    printf '%s\n' "$2" > "$TMP/$1.c"
    $CC -std=c11 -shared -fPIC -I "$ROOT/include" "$TMP/$1.c" -o "$TMP/$1.so" 2>&1 || fail "build_$1" "cc failed"
}
printf 'not an ELF file\n' > "$TMP/text.so"
so nosym 'int headroom_plugin_v0(void) { return 0; }'
PRE='#include "headroom/plugin.h"
static int run_ok(const hrp_problem *p, const hrp_tune *t, const hrp_args *a, void *w) { (void)p, (void)t, (void)a, (void)w; return HRP_OK; }
static int run_bad(const hrp_problem *p, const hrp_tune *t, const hrp_args *a, void *w) { (void)p, (void)t, (void)a, (void)w; return 7; }
static const char *why(void) { return "the library could not start"; }'
plugin() { # plugin MAJOR SIZE NAME RUN [KERNEL-SIZE]: a plugin source
    printf '%s\n%s\n%s\n%s\n' "$PRE" \
        "static const hrp_kernel k = {.size = ${5:-sizeof(hrp_kernel)}, .name = \"$3\", .summary = \"test\", .caps = HRP_CAP_CAUSAL | HRP_CAP_THREADED, .run = $4};" \
        'static const hrp_kernel *const ks[] = {&k};' \
        "HRP_EXPORT const hrp_plugin *headroom_plugin_v1(void) { static const hrp_plugin p = {$1, 0, $2, \"bad\", \"0\", 1, ks, why}; return &p; }"
}
so major "$(plugin 2 'sizeof(hrp_plugin)' bad_major run_ok)"
so small "$(plugin 1 8 bad_small run_ok)"
so ksmall "$(plugin 1 'sizeof(hrp_plugin)' bad_ksmall run_ok 16)"
so clash "$(plugin 1 'sizeof(hrp_plugin)' naive run_ok)"
so fails "$(plugin 1 'sizeof(hrp_plugin)' bad_run run_bad)"
cp "$P" "$TMP/twice.so"

expect bad_not_elf 2 "^headroom list: plugin $TMP/text.so: not a loadable shared object" -- $B list --plugin "$TMP/text.so"
expect bad_not_elf_lists 2 'flash ' -- $B list --plugin "$TMP/text.so"
expect bad_missing 2 "plugin $TMP/missing.so: no such file" -- $B list --plugin "$TMP/missing.so"
expect bad_no_symbol 2 "plugin $TMP/nosym.so: no entry symbol headroom_plugin_v1" -- $B list --plugin "$TMP/nosym.so"
expect bad_abi_major 2 "plugin $TMP/major.so: ABI major version 2, this headroom speaks 1" -- $B list --plugin "$TMP/major.so"
expect bad_size 2 "plugin $TMP/small.so: struct size too small: hrp_plugin.size 8" -- $B list --plugin "$TMP/small.so"
expect bad_kernel_size 2 "plugin $TMP/ksmall.so: struct size too small: hrp_kernel.size 16" -- $B list --plugin "$TMP/ksmall.so"
expect bad_clash_builtin 2 "plugin $TMP/clash.so: kernel name 'naive' clashes with a built-in kernel" -- $B list --plugin "$TMP/clash.so"
expect bad_clash_plugin 2 "plugin $TMP/twice.so: kernel name 'example_naive' clashes with plugin $P" -- $B list --plugin "$P" --plugin "$TMP/twice.so"
expect same_file_twice 0 '' -- $B list --plugin "$P" --plugin "$P"
# A kernel named like another is refused before anything runs: one line naming the file
# and the name, exit 2, nothing measured or written (never the built-in in its place).
expect clash_run_exit 2 '' -- $B run --plugin "$TMP/clash.so" --kernel naive "${RUN[@]}"
expect clash_run_nothing 0 "^1 0 headroom run: plugin $TMP/clash.so: kernel name 'naive' clashes with a built-in kernel\$" -- bash -c "$B run --plugin $TMP/clash.so --kernel naive ${RUN[*]} > $TMP/clash.out 2> $TMP/clash.err; echo \$(wc -l < $TMP/clash.err) \$(wc -c < $TMP/clash.out) \$(cat $TMP/clash.err)"
expect clash_sweep_nothing 2 "^headroom sweep: plugin $TMP/clash.so: kernel name 'naive' clashes with a built-in kernel\$" -- bash -c "$B sweep $TMP/p.ini --plugin $TMP/clash.so --out $TMP/clash_sw; st=\$?; test ! -e $TMP/clash_sw || echo 'wrote $TMP/clash_sw'; exit \$st"
expect clash_env_check 2 "^headroom check: plugin $TMP/clash.so: kernel name 'naive' clashes with a built-in kernel \(HEADROOM_PLUGIN_PATH\)\$" -- env HEADROOM_PLUGIN_PATH="$TMP/clash.so" $B check --quick --kernel naive
expect clash_plugin_run 2 "^headroom run: plugin $TMP/twice.so: kernel name 'example_naive' clashes with plugin $P\$" -- $B run --plugin "$P" --plugin "$TMP/twice.so" --kernel example_naive "${RUN[@]}"
expect bad_env 2 "plugin $TMP/text.so: not a loadable .*\(HEADROOM_PLUGIN_PATH\)" -- env HEADROOM_PLUGIN_PATH="$TMP/text.so" $B list
# The good plugin beside a bad one still runs (the command goes on; the exit says 2).
expect bad_others_run 2 'check: pass' -- $B run --plugin "$TMP/nosym.so" --plugin "$P" --kernel example_naive "${RUN[@]}" --check
expect bad_check_others 2 'example_naive +f32 +T1 +[0-9]+ pass' -- $B check --quick --kernel example_naive --plugin "$TMP/major.so" --plugin "$P"
# A run that fails: the kernel and plugin named, exit 2, never a result.
expect run_fails 2 "kernel bad_run \(plugin $TMP/fails.so\): run failed: the library could not start" -- $B run --plugin "$TMP/fails.so" --kernel bad_run "${RUN[@]}"
expect check_fails 2 "headroom check: kernel bad_run \(plugin $TMP/fails.so\): run failed" -- $B check --quick --kernel bad_run --plugin "$TMP/fails.so"
expect tune_fails 2 "kernel bad_run \(plugin $TMP/fails.so\): run failed" -- $B tune --plugin "$TMP/fails.so" --kernel bad_run --heads 2 --seq 32 --budget 2 --min-time 0.002 --rounds 3 --dry-run
expect layer_fails 2 "kernel bad_run \(plugin $TMP/fails.so\): run failed" -- $B layer --plugin "$TMP/fails.so" --kernel bad_run --seq 32 --d-model 64 --reps 1 --min-time 0 --warmup 0
expect decode_fails 2 "kernel bad_run \(plugin $TMP/fails.so\): run failed" -- $B decode-loop --plugin "$TMP/fails.so" --kernel bad_run --layers 1 --heads 2 --d-head 32 --prompt 8 --tokens 2
sed 's/^kernels = .*/kernels = bad_run, example_naive/' "$TMP/p.ini" > "$TMP/fails.ini"
expect sweep_fails_others_run 2 "bad_run \(plugin $TMP/fails.so\): run failed" -- $B sweep "$TMP/fails.ini" --plugin "$TMP/fails.so" --plugin "$P" --out "$TMP/swf"
expect sweep_fails_rows 0 'example_naive/B1/H2/G2/N33' -- cat "$TMP/swf/rows.jsonl"
finish
