# decode.gp — decode: time per generated token vs KV-cache length, per kernel and configuration,
# beside the memory bound (KV bytes ÷ measured triad), on log-log axes.
# Called by `headroom plot` with -e: datafile, outfile, fmt, who, gpdir, ns (series blocks
# 0..ns-1: x tokens in the cache, y milliseconds), nb (bound blocks ns..ns+nb-1, one per
# series, the same colour; 0 without ceilings), tit / btit (titles as quoted words), ylab
# (what y is). Log-log: a step that reads its cache at a fixed bandwidth is a line of slope
# 1, parallel to its bound; the vertical gap between them is the headroom.
w = 1150; h = 620
load gpdir.'/style.gp'
set title sprintf("Decode: time per token as the KV cache grows, and the bound KV bytes ÷ triad — %s", who) noenhanced
set xlabel 'tokens in the KV cache (log scale)'
set ylabel ylab.' (log scale)' noenhanced
set logscale x 2
set logscale y 10
set format x '%g'
set format y '%g'
set offsets graph 0.02, graph 0.02, 0, 0
set key top left noenhanced box opaque Left reverse
plot for [i=1:ns] datafile index (i-1) using 1:2 with linespoints lt i title word(tit, i), \
     for [i=1:nb] datafile index (ns+i-1) using 1:2 with lines lt i dt 2 lw 2 title word(btit, i)
