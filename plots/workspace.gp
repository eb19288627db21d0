# workspace.gp — working memory vs N per kernel (log-log): N x N score buffers grow as N^2, tiles stay flat.
# Called by `headroom plot` with -e: datafile, outfile, fmt, who, gpdir, nk (blocks, one per
# kernel), tit (titles as quoted words), shape (the base shape), none (kernels without any
# workspace, which a log axis cannot show).
w = 1000; h = 620
load gpdir.'/style.gp'
set title sprintf("Working memory vs sequence length — %s\n%s; workspace the harness allocates for the kernel", who, shape) noenhanced
set xlabel 'N (tokens)'
set ylabel 'workspace (MiB)'
set logscale x 2
set logscale y 10
set format x '%g'
set format y '%g'
set offsets graph 0.02, graph 0.02, 0, 0
set key top left noenhanced box opaque Left reverse
if (strlen(none) > 0) {
    set label 1 sprintf('no workspace (not drawn): %s', none) at graph 0.98, graph 0.04 right noenhanced
}
plot for [i=1:nk] datafile index (i-1) using 1:2 with linespoints lt i title word(tit, i)
