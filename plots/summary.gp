# SPDX-License-Identifier: GPL-2.0-or-later
# Summary of a run, one column per scenario on a log latency axis: each
# rep's corrected p99.9 (filled circle) and max (open triangle), the
# control's range shaded (its smallest p99.9 to its largest max, widened
# by half a 1 us bin each way: the bins those values stand for), and the
# p99.9 ratio over the control with its 95 % interval written above
# ("*": significant). Reads the slb-stats --plot-data files summary.dat
# and summary-scen.dat. Needs common.gp's variables.
load "plots/common.gp"
if (fmt eq "svg") { set terminal svg size 1200,700 dynamic font "sans,12" } else { set terminal pngcairo size 1200,700 font "sans,10" }
set output out.".".fmt
set title sprintf("p99.9 and max per rep, control's range shaded, ratio over the control (95 %% CI), %s, run %s", emul, run) noenhanced
set ylabel sprintf("latency (us, %s, log)", timebase)
set logscale y
set xrange [-0.6:words(names) - 0.4]
set xtics rotate by -30 noenhanced
set datafile missing "?"
# Headroom above the highest point for the ratio labels, which stand
# upright from 1.4 times it (an autoscaled axis ends at the point and
# cuts them off).
stats datadir."/summary-scen.dat" using 10 nooutput
set yrange [1:(STATS_max > 1 ? STATS_max * 40 : 100)]
set style fill transparent solid 0.25 noborder
set key outside right top
plot datadir."/summary-scen.dat" using 1:(sqrt($4 * $5)):($1 - 0.4):($1 + 0.4):($4 - 0.5):($5 + 0.5) with boxxyerror \
		linecolor rgb "#56b4e9" title "control's range", \
	datadir."/summary.dat" using ($1 - 0.12):4:xtic(2) with points pointtype 7 pointsize 1.2 \
		linecolor rgb "#000000" title "p99.9 per rep", \
	datadir."/summary.dat" using ($1 + 0.12):5 with points pointtype 8 pointsize 1.2 \
		linecolor rgb "#e51e10" title "max per rep", \
	datadir."/summary-scen.dat" using 1:($10 * 1.4):9 with labels left rotate by 90 \
		font ",9" noenhanced notitle
