# SPDX-License-Identifier: GPL-2.0-or-later
# Percentile plot: fraction of samples at or above each latency (1 - CDF,
# log y, the largest sample included), so that p99 and p99.9 read off at
# 1e-2 and 1e-3; the latency axis is log too, so that scenarios from a
# 3 us floor to a millisecond tail all stay apart (a 0 us bucket, which a
# log axis cannot show, is left out: the curve starts at 1 us, where the
# fraction at or above is still right). Needs common.gp's variables.
load "plots/common.gp"
set title sprintf("latency tail (1 - CDF), %s, run %s", emul, run) noenhanced
set xlabel sprintf("latency (us, %s, log)", timebase)
set logscale x
set ylabel "fraction of samples at or above (log)"
set logscale y
set format y "1e%T"
set arrow 1 from graph 0, first 1e-2 to graph 1, first 1e-2 nohead dashtype 3
set arrow 2 from graph 0, first 1e-3 to graph 1, first 1e-3 nohead dashtype 3
# one colour per scenario for its curve and the point marking its max
plot for [i=1:words(names)] datadir."/".word(names, i).".ccdf" using ($1 > 0 ? $1 : 1/0):2 with lines linewidth 2 \
		linetype i title word(names, i) noenhanced, \
	for [i=1:words(names)] datadir."/".word(names, i).".max" using ($1 > 0 ? $1 : 1/0):2 with points pointtype 7 \
		pointsize 1.2 linetype i notitle
