# SPDX-License-Identifier: GPL-2.0-or-later
# OSADL-style latency histogram of one scenario: x latency (us, linear),
# y samples (log), pooled over the reps (impulses) with one step curve per
# rep (how far the reps spread), the maximum marked. Needs common.gp's
# variables and scen, maxus, nreps.
load "plots/common.gp"
set title sprintf("%s: latency on the isolated vCPU, %s, run %s", scen, emul, run) noenhanced
set xlabel sprintf("latency (us, %s; bins of %d us)", timebase, bin)
set xrange [0:xmax]
set ylabel "samples (log)"
set logscale y
set yrange [0.8:*]
set arrow 1 from maxus, graph 0 to maxus, graph 1 nohead dashtype 2 linecolor rgb "red"
set label 1 sprintf("max %d us", maxus) at maxus, graph 0.95 right offset -0.5,0 textcolor rgb "red"
set key top right
plot datadir."/".scen.".hist" using 1:($2 > 0 ? $2 : 1/0) with impulses linewidth 2 title scen." (pooled)" noenhanced, \
	for [i=1:nreps] datadir."/".scen.".reps" using 1:(column(i + 1) > 0 ? column(i + 1) : 1/0) \
		with steps linewidth 1 title columnheader(i + 1) noenhanced
