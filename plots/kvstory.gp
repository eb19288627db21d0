# kvstory.gp — the KV-cache story: per stored type, tokens/s against the GiB the cache holds, and the format's error.
# Called by `headroom plot` with -e: datafile, outfile, fmt, who, gpdir, ns (series: one per
# kv_dtype x kernel x threads x shape, widest type first), nerr (series with a measured
# error), tit (titles as quoted words, with the error), slab (short labels: type kernel
# threads), scol (the type's colour per series:
# f32 1, f16 2, bf16 3, q8_0 4, q4_0 5, as in kvcache.gp), sdash (dash type per series:
# the second and later series of one type dashed).
# Blocks 0..ns-1: x GiB of KV cache at the range's last length, y tokens/s, z that length
# in tokens (the point's label); block ns: x series number, y the format's max relative
# error (NaN: not measured); blocks ns+1..ns+nb: the roof, triad GB/s over the cache's
# bytes at each thread count (btit: titles), a line of slope -1 on these log-log axes.
# Without a measured error the right panel is left out.
both = nerr > 0
w = both ? 1500 : 1000; h = 640
load gpdir.'/style.gp'
set multiplot layout 1,(both ? 2 : 1) title sprintf("The KV-cache story: memory, speed and accuracy per stored type — %s\ndecode-loop --kv-dtype; each point a range of steps, labelled with the tokens in the cache", who) noenhanced
set title 'tokens/s against the KV cache it reads (all layers, K and V, scales included)'
set xlabel 'KV cache (GiB, log scale)'
set ylabel 'tokens/s (median over the range, log scale)'
set logscale x 2
set logscale y 10
set format x '%g'
set format y '%g'
set offsets graph 0.04, graph 0.04, graph 0.06, 0
set key top right noenhanced box opaque Left reverse
plot for [i=1:ns] datafile index (i-1) using 1:2 with linespoints lt wnum(scol, i) dt wnum(sdash, i) title word(tit, i), \
     for [i=1:ns] datafile index (i-1) using 1:2:(sprintf('%.0fK', $3/1024)) with labels font ',8' offset 0,0.8 notitle, \
     for [j=1:nb] datafile index (ns+j) using 1:2 with lines lc rgb '#303030' dt 2 lw 2 title word(btit, j)
if (both) {
    set title "the format's error: fp64 oracle on the original fp32 inputs vs the output (max relative)"
    unset logscale x
    set logscale y 10
    set format y '%.0e'
    set yrange [*:*]
    set xrange [0.3:ns+0.7]
    set xtics rotate by -30 noenhanced
    set xlabel 'stored type, kernel, threads'
    set ylabel 'max relative error (log scale)'
    set style fill solid 0.6 border -1
    set boxwidth 0.6
    set key off
    plot datafile index ns using 1:2:(wnum(scol, int($1))):xtic(word(slab, int($1))) with boxes lc variable notitle, \
         datafile index ns using 1:2:(sprintf('%.1e', $2)) with labels font ',8' offset 0,0.8 notitle
}
unset multiplot
