#!/usr/bin/env bash
# sh_kvcache.sh — `headroom kvcache` (worked examples, formats, errors) and `headroom decode-loop`.
SUITE=kvcache
source "$(dirname "$0")/lib.sh"

expect help               0 'usage: headroom kvcache'   -- $B kvcache --help
expect help-loop          0 'usage: headroom decode-loop' -- $B decode-loop --help
# Worked examples: GPT-3 175B 4096 fp16 = 18 GiB; Llama-2-7B 4096 fp16 = 2 GiB;
# Llama-3-8B 8192 fp16 = 1 GiB (MHA equivalent 4 GiB, saving 4x). q8_0 and q4_0 count
# their fp16 scales: 34 and 18 bytes per 32 values, so Llama-3-8B 8192 q8_0 = 544 MiB,
# the "KV self size = 544.00 MiB" llama.cpp prints for -c 8192 -ctk q8_0 -ctv q8_0.
expect gpt3-table         0 '4096\*? +36\.00 GiB +18\.00 GiB +18\.00 GiB +9\.56 GiB +5\.06 GiB +18\.00 GiB +1\.0x' -- $B kvcache --model gpt3-175b --context 4096
expect gpt3-csv-exact     0 'gpt3-175b,MHA,96,12288,96,96,128,2048,1,4096,38654705664,19327352832,19327352832,10267656192,5435817984,' -- $B kvcache --model gpt3-175b --context 4K --format csv
expect llama2-7b-table    0 '4096  +4\.00 GiB +2\.00 GiB +2\.00 GiB +1\.06 GiB +576\.0 MiB +2\.00 GiB' -- $B kvcache --model llama2-7b --context 4096
expect llama3-8b-table    0 '8192  +2\.00 GiB +1\.00 GiB +1\.00 GiB +544\.0 MiB +288\.0 MiB +4\.00 GiB +4\.0x' -- $B kvcache --model llama3-8b --context 8K
expect llama3-8b-q-bytes  0 '^llama3-8b,GQA,32,4096,32,8,128,8192,1,8192,2147483648,1073741824,1073741824,570425344,301989888,' -- $B kvcache --model llama3-8b --context 8K --format csv
expect table-types        0 'tokens +f32 +f16 +bf16 +q8_0 +q4_0 +MHA f16 +saving' -- $B kvcache --model llama3-8b --context 1
expect table-scales-note  0 'q8_0 1\.0625 \(34 bytes per block of 32 values' -- $B kvcache --model llama3-8b --context 1
expect csv-header         0 '^model,.*,tokens,bytes_f32,bytes_f16,bytes_bf16,bytes_q8_0,bytes_q4_0,mha_bytes_f32,mha_bytes_f16,mha_bytes_bf16,mha_bytes_q8_0,mha_bytes_q4_0,saving,beyond_context$' -- $B kvcache --model llama3-8b --context 1 --format csv
expect falcon-mqa-saving  0 '71\.0x'                    -- $B kvcache --model falcon-7b --context 2048
expect batch-scales       0 '4096  +32\.00 GiB +16\.00 GiB' -- $B kvcache --model llama2-7b --context 4096 --batch 8
expect beyond-context     0 "beyond the model's published context" -- $B kvcache --model gpt2-small --context 2K
expect all-models         0 'falcon-7b: 32 layers'      -- $B kvcache
expect default-contexts   0 '131072\*'                  -- $B kvcache --model llama3-8b
expect json-bytes         0 '"f16":[[:space:]]*1073741824' -- $B kvcache --model llama3-8b --context 8192 --format json
expect json-q4-bytes      0 '"q4_0":[[:space:]]*301989888' -- $B kvcache --model llama3-8b --context 8192 --format json
expect json-per-value     0 '"q8_0":[[:space:]]*1\.0625' -- $B kvcache --model llama3-8b --context 1 --format json
expect case-insensitive   0 'llama3-8b:'                -- $B kvcache --model LLAMA3-8B --context 1
if command -v python3 >/dev/null; then
    expect json-valid     0 '^14$'  -- sh -c "$B kvcache --format json | python3 -c 'import json,sys; print(len(json.load(sys.stdin)[\"models\"]))'"
else
    skip json-valid "no python3"
fi
expect csv-rows           0 '^113$' -- sh -c "$B kvcache --format csv | wc -l | tr -d ' '"

expect unknown-model      2 "--model: unknown model 'gpt5' \(known: .*llama3-8b" -- $B kvcache --model gpt5
expect context-zero       2 '--context: token counts must be in \[1, '  -- $B kvcache --context 0
expect context-garbage    2 '--context: expected a list'  -- $B kvcache --context 1K,,2K
expect context-suffix     2 '--context: expected a list'  -- $B kvcache --context 4Q
expect context-huge       2 '--context: token counts must be in' -- $B kvcache --context 99999M
expect batch-zero         2 '--batch: must be in \[1, '    -- $B kvcache --batch 0
expect bad-format         2 '--format: expected one of'    -- $B kvcache --format xml
expect models-missing     2 'nope\.ini: cannot read model presets file'       -- $B kvcache --models "$TMP/nope.ini"
printf '[m]\nlayers = 4\nd_model = 64\nheads = 8\nkv_heads = 3\nd_head = 8\n' > "$TMP/div.ini"
expect models-kv-divide   2 'div\.ini:1: \[m\]: kv_heads does not divide heads' -- $B kvcache --models "$TMP/div.ini"
printf '[m]\nlayers = 4\nd_modle = 64\n' > "$TMP/typo.ini"
expect models-typo        2 "typo\.ini:3: \[m\]: unknown key 'd_modle'" -- $B kvcache --models "$TMP/typo.ini"
printf '[m]\nlayers = 4\nd_model = 64\nheads = 8\nkv_heads = 2\nd_head = 8\n' > "$TMP/ok.ini"
expect models-custom      0 '^m: 4 layers'  -- $B kvcache --models "$TMP/ok.ini" --context 1K
# d_head 8: no q8_0 / q4_0 block fits; their cells say so, the CSV leaves them empty.
expect blockless-table    0 '1024 +512\.0 KiB +256\.0 KiB +256\.0 KiB +- +- +1\.00 MiB' -- $B kvcache --models "$TMP/ok.ini" --context 1K
expect blockless-note     0 'q8_0 and q4_0 need d_head a multiple of 32' -- $B kvcache --models "$TMP/ok.ini" --context 1K
expect blockless-csv      0 '^m,GQA,4,64,8,2,8,0,1,1024,524288,262144,262144,,,2097152,1048576,1048576,,,4,0$' -- $B kvcache --models "$TMP/ok.ini" --context 1K --format csv
expect blockless-json     0 '"q8_0":[[:space:]]*null' -- $B kvcache --models "$TMP/ok.ini" --context 1K --format json

# decode-loop: a tiny generation, checked against the oracle at the end.
expect loop-table         0 'total: 6 tokens in .* tokens/s' -- $B decode-loop --layers 2 --heads 4 --kv-heads 2 --d-head 32 --prompt 40 --tokens 6 --rows 3 --threads 2 --check
expect loop-check         0 'check: pass'    -- $B decode-loop --layers 1 --heads 8 --kv-heads 1 --d-head 16 --prompt 0 --tokens 5 --check --dist large
expect loop-csv           0 '^kernel,batch,heads,kv_heads,d_head,layers,prompt,threads,step_first' -- $B decode-loop --layers 1 --heads 2 --d-head 8 --prompt 8 --tokens 4 --format csv
expect loop-csv-rows      0 '^5$' -- sh -c "$B decode-loop --layers 1 --heads 2 --d-head 8 --prompt 8 --tokens 4 --rows 9 --format csv | wc -l | tr -d ' '"
expect loop-json          0 '"tokens_per_s"' -- $B decode-loop --layers 1 --heads 2 --d-head 8 --prompt 8 --tokens 3 --format json
expect loop-model         0 'Hq71 Hkv1 d64, 1 layers' -- $B decode-loop --model falcon-7b --layers 1 --prompt 16 --tokens 2
expect loop-other-kernel  0 'check: pass' -- $B decode-loop --kernel flash --layers 1 --heads 4 --d-head 16 --prompt 20 --tokens 3 --check
expect loop-kv-divide     2 '--kv-heads: 3 does not divide --heads 8' -- $B decode-loop --heads 8 --kv-heads 3 --tokens 1
expect loop-unknown-kernel 2 "--kernel: unknown kernel 'nope'" -- $B decode-loop --kernel nope
expect loop-unknown-model 2 "--model: unknown model 'gpt5'" -- $B decode-loop --model gpt5
expect loop-tokens-zero   2 '--tokens: must be in \[1, '   -- $B decode-loop --tokens 0
expect loop-over-budget   2 '--max-mem: the KV cache and buffers need' -- $B decode-loop --layers 80 --prompt 100000 --tokens 1 --max-mem 1G
expect loop-too-long      2 '--tokens: prompt \+ tokens'   -- $B decode-loop --prompt 16777000 --tokens 1000
# --ceilings: GB/s as a percentage of the measured triad; a missing file is an error.
$B roofline --quick --threads 1 --out "$TMP/ceil.json" >/dev/null 2>&1
expect loop-ceilings      0 '% triad = GB/s / best triad [0-9.]+ GB/s at 1 thread' -- $B decode-loop --layers 1 --heads 2 --d-head 8 --prompt 8 --tokens 2 --threads 1 --ceilings "$TMP/ceil.json"
expect loop-ceilings-csv  0 ',[0-9.]+,f32,f32,,0$' -- sh -c "$B decode-loop --layers 1 --heads 2 --d-head 8 --prompt 8 --tokens 2 --threads 1 --format csv --ceilings $TMP/ceil.json | tail -n 1"
expect loop-ceilings-missing 2 'nope\.json: cannot read ceilings file' -- $B decode-loop --ceilings "$TMP/nope.json"
finish
