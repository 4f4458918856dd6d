# SPDX-License-Identifier: GPL-2.0-or-later
# make calibrate: how much a load on the other CPU slows the victim, per
# working set: split / aligned and aligned / none (Hodges-Lehmann over
# reps, 95 % intervals). Variables as plots/calibrate-victim.gp.
load "plots/common.gp"
set title sprintf("victim slowdown on CPU %d under a load on CPU %d (lock %s); %s; run %s", victim_cpu, load_cpu, load_form, cpu, run) noenhanced
set xlabel "working set (random dependent loads; log)"
set ylabel "ratio of ns per step (95 % interval)"
set logscale x 4
set yrange [0:*]
set format x "%.0b %BB"
set key inside left top
do for [i=1:words(caches)] {
	c = word(caches, i) + 0
	set arrow i from c, graph 0 to c, graph 1 nohead dashtype 3 linecolor rgb "gray50"
	set label i word(cachenames, i) at c, graph 0.04 offset 0.5, 0 textcolor rgb "gray30"
}
set label 100 sprintf("arithmetic loop: split / aligned x%.3g", arith_ratio + 0) at graph 0.02, graph 0.75 noenhanced
plot 1 with lines dashtype 2 linecolor rgb "gray50" notitle, \
     datafile using 1:3:4:5 with yerrorlines pointtype 9 linecolor rgb "#e51e10" title "split / aligned", \
     datafile using 1:6:7:8 with yerrorlines pointtype 5 linecolor rgb "#009e73" title "aligned / none"
