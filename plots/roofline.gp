# roofline.gp — roofline: every kernel x shape at (FLOP/byte, GFLOP/s) under the measured roofs.
# Called by `headroom plot` with -e: datafile, outfile, fmt ('png'|'svg'), who (machine,
# date), gpdir (this directory, for style.gp), nroof (roof blocks: min(peak, AI*BW) per
# thread count), npeak (dashed peaks of the other ISAs), ndot (the dot-product roofs,
# bf16 and int8, at the largest thread count; colours in dcol), ncache (the L1/L2/L3
# bandwidth roofs at the largest thread count, slopes up to the FMA peak; colours in
# ccol; 0 with an old ceilings file), nsmx (the softmax ceilings of the build level's
# flash step times 4 d, one flat dotted line per head dimension; colours in scol; 0 with
# an old ceilings file), npts (point blocks, one per
# kernel x threads; 0 without a sweep: the roofs alone), rtit/ptit (block titles as quoted
# words), pcol/ptyp (colour index and point type per point block), xmin, xmax.
w = 1200; h = 680
load gpdir.'/style.gp'
set title sprintf("Roofline — %s\nFP32 FMA roofs in grey; bf16 / int8 dot-product roofs in colour (int8 in GOP/s); L1 / L2 / L3 bandwidth roofs dashed in colour", who) noenhanced
set xlabel 'arithmetic intensity (FLOP/byte, counts.c traffic model)'
set ylabel 'GFLOP/s (median)'
set logscale xy 2
set format x '%g'
set format y '%g'
set xrange [xmin:xmax]
set key outside right top noenhanced box Left reverse spacing 1.1 width 1
# Roofs: solid dark lines, one dash type per thread count; other ISAs' peaks grey dashed.
plot \
  for [i=1:nroof] datafile index (i-1) using 1:2 with lines lw 2 lc rgb '#303030' dt i title word(rtit, i), \
  for [i=1:npeak] datafile index (nroof+i-1) using 1:2 with lines lw 1 lc rgb '#999999' dt i+1 title word(rtit, nroof+i), \
  for [i=1:ndot] datafile index (nroof+npeak+i-1) using 1:2 with lines lw 2 lc rgb word(dcol, i) title word(rtit, nroof+npeak+i), \
  for [i=1:ncache] datafile index (nroof+npeak+ndot+i-1) using 1:2 with lines lw 2 lc rgb word(ccol, i) dt 2 title word(rtit, nroof+npeak+ndot+i), \
  for [i=1:nsmx] datafile index (nroof+npeak+ndot+ncache+i-1) using 1:2 with lines lw 2 lc rgb word(scol, i) dt 3 title word(rtit, nroof+npeak+ndot+ncache+i), \
  for [i=1:npts] datafile index (nroof+npeak+ndot+ncache+nsmx+i-1) using 1:2 with points lc wnum(pcol, i) pt wnum(ptyp, i) ps 1.3 title word(ptit, i)
