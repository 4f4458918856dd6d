# SPDX-License-Identifier: GPL-2.0-or-later
# One small panel per comparison: the scenario's and its control's pooled
# histograms on the same axes (two at a time, where an overlay of all
# scenarios is a tangle). Needs common.gp's variables and pairs_a, pairs_b
# (space-separated control and scenario names, one word per comparison),
# pairs_top (each panel's largest latency, us: its x range) and bin (the
# bin width of the .hist files).
load "plots/common.gp"
n = words(pairs_b)
cols = n < 3 ? n : 3
rows = (n + cols - 1) / cols
if (fmt eq "svg") { set terminal svg size 1200,(300 * rows) dynamic font "sans,10" } else { set terminal pngcairo size 1200,(300 * rows) font "sans,9" }
set output out.".".fmt
set logscale y
set yrange [0.8:*]
set key inside right top font ",8"
set xlabel sprintf("latency (us, %s; bins of %d us)", timebase, bin) font ",8"
set ylabel "samples (log)" font ",8"
set multiplot layout rows, cols title sprintf("each comparison: scenario (solid) over its control (dashed), %s, run %s", emul, run) noenhanced
do for [k=1:n] {
	set title word(pairs_b, k)." / ".word(pairs_a, k) noenhanced
	set xrange [0:(word(pairs_top, k) + 0) * 1.1 + 2 * bin]
	plot datadir."/".word(pairs_a, k).".hist" using 1:($2 > 0 ? $2 : 0.8) with steps linewidth 2 \
			linecolor rgb "#0072b2" dashtype 2 title word(pairs_a, k) noenhanced, \
		datadir."/".word(pairs_b, k).".hist" using 1:($2 > 0 ? $2 : 0.8) with steps linewidth 2 \
			linecolor rgb "#e51e10" title word(pairs_b, k) noenhanced
}
unset multiplot
