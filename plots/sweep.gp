# SPDX-License-Identifier: GPL-2.0-or-later
# Isolated-vCPU latency of split-off against the modelled split-lock cost
# (make bench-sweep). bench/experiment/sweep.sh sets datafile, deadline (us), run,
# model (a line naming the bus-lock model), calpoint (the calibrated
# model's own cost in ns, marked; 0: none) and labels (1: each point is a
# calibration, named by the data's column 7).
load "plots/common.gp"
set title sprintf("split locks vs their cost, virtual time (QEMU TCG icount), run %s\n%s", run, model) noenhanced
set xlabel "split-lock cost to its issuer (ns, log)"
set ylabel "latency on the isolated vCPU (us, virtual time, log)"
set logscale xy
# room for the calibrations' names (labels) beside the first and the last
if (labels) {
	stats datafile using 1 name "X" nooutput
	set xrange [X_min / 2:X_max * 2]
}
# the deadline always inside the plot, above the largest latency or below it
stats datafile using 4 nooutput
set yrange [1:(STATS_max > deadline ? 2 * STATS_max : 2 * deadline)]
set key inside left top
if (calpoint > 0) {
	set arrow from calpoint, graph 0 to calpoint, graph 1 nohead dashtype 3 linecolor rgb "gray40"
	set label "calibrated" at calpoint, graph 0.04 right offset -0.5, 0 textcolor rgb "gray40"
}
# the calibrations' names above their p99.9 points
calnames = labels ? ", datafile using 1:3:7 with labels offset 0, 1.2 textcolor rgb 'gray20' notitle" : ""
plot datafile using 1:2 with linespoints pointtype 7 title "p99", \
     datafile using 1:3 with linespoints pointtype 5 title "p99.9", \
     datafile using 1:4 with linespoints pointtype 9 title "max", \
     datafile using 1:5 with linespoints dashtype 2 title "aligned control p99.9", \
     deadline with lines linewidth 2 linecolor rgb "red" title sprintf("%d us deadline", deadline) @calnames
