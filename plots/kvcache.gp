# kvcache.gp — KV-cache memory vs context length: one panel per model preset, one line per stored type.
# Called by `headroom plot` with -e: datafile, outfile, fmt, who, gpdir, nm (models), nt
# (stored types), tit (one title per model as quoted words), ttit (the type names), tdash
# (a dash type per type), batch.
# bf16 is dashed: it lies on f16 (2 bytes each).
# Blocks: per model nt type series (tokens, GiB with the q8_0/q4_0 scales), then the model
# as MHA at f16 (empty for MHA models), so model m's type t is block (nt+1)*(m-1)+t-1.
cols = nm <= 1 ? 1 : nm <= 4 ? 2 : 3
rows = (nm + cols - 1) / cols
w = cols == 1 ? 1000 : 1450; h = 120 + 380 * rows
load gpdir.'/style.gp'
set multiplot layout rows,cols title sprintf("KV-cache memory vs context length, per stored type (batch %s) — %s\n2 x layers x batch x kv heads x tokens x d_head x bytes per value: f32 4, f16/bf16 2, q8_0 34/32, q4_0 18/32 (scales included); dashed grey: the model as MHA at f16", batch, who) noenhanced
set xlabel 'context length (K tokens in the cache, K = 1024)'
set ylabel 'KV cache (GiB, log scale)'
set logscale x 2
set logscale y 10
set format x '%g'
set format y '%g'
set offsets graph 0.02, graph 0.02, 0, 0
set key top left noenhanced box opaque Left reverse
do for [m=1:nm] {
    set title word(tit, m) noenhanced
    plot for [t=1:nt] datafile index ((nt+1)*(m-1)+t-1) using ($1/1024):2 with linespoints lt t dt wnum(tdash, t) ps 0.8 title word(ttit, t), \
         datafile index ((nt+1)*m-1) using ($1/1024):2 with lines lc rgb '#999999' dt 2 lw 1.5 title 'MHA f16'
}
unset multiplot
