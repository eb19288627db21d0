# decode.gp — decode: time per generated token vs KV-cache length, per kernel and configuration.
# Called by `headroom plot` with -e: datafile, outfile, fmt, who, gpdir, ns (series blocks:
# x tokens in the cache, y milliseconds), tit (titles as quoted words), ylab (what y is),
# logx (1: a log2 x axis, for caches spanning more than 16x).
w = 1150; h = 620
load gpdir.'/style.gp'
set title sprintf("Decode: time per token as the KV cache grows — %s", who) noenhanced
set xlabel 'tokens in the KV cache'
set ylabel ylab noenhanced
if (logx) { set logscale x 2 }
set format x '%g'
set yrange [0:*]
set offsets graph 0.02, graph 0.02, 0, 0
set key top left noenhanced box opaque Left reverse
plot for [i=1:ns] datafile index (i-1) using 1:2 with linespoints lt i title word(tit, i)
