# kvcache.gp — KV-cache memory vs context length per model preset (fp16), GQA/MQA beside their MHA equivalent.
# Called by `headroom plot` with -e: datafile, outfile, fmt, who, gpdir, nm (models, 2 blocks
# each: the model's own attention, the MHA equivalent; the latter empty for MHA models), tit
# (2 titles per model as quoted words, "" for none), batch.
w = 1150; h = 660
load gpdir.'/style.gp'
set title sprintf("KV-cache memory vs context length (fp16, batch %s) — %s\n2 x layers x batch x kv heads x d_head x tokens x 2 bytes; fp32 doubles it, int8 halves it; dashed: the same model as MHA", batch, who) noenhanced
set xlabel 'context length (tokens in the cache)'
set ylabel 'KV cache (GiB, log scale)'
set logscale x 2
set logscale y 10
set format x '%g'
set format y '%g'
set offsets graph 0.02, graph 0.02, 0, 0
set key outside right top noenhanced box Left reverse
plot for [m=1:nm] datafile index (2*m-2) using 1:2 with linespoints lt m title word(tit, 2*m-1), \
     for [m=1:nm] datafile index (2*m-1) using 1:2 with lines lt m dt 2 lw 1.5 title word(tit, 2*m)
