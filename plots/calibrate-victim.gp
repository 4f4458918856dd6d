# SPDX-License-Identifier: GPL-2.0-or-later
# make calibrate: the victim's ns per step against its working set, one
# curve per load on the other CPU, cache sizes marked. bench/experiment/calibrate.sh
# sets datafile, run, cpu, victim_cpu, load_cpu, load_form, reps, caches
# and cachenames (sizes in bytes and L1 L2 ...), arith (the arithmetic
# loop's ns per step: none aligned split), arith_ratio.
load "plots/common.gp"
set title sprintf("victim on CPU %d, load on CPU %d (lock %s); %s; run %s", victim_cpu, load_cpu, load_form, cpu, run) noenhanced
set xlabel "working set (random dependent loads; log)"
set ylabel sprintf("ns per step (median of %d reps, 95 %% interval; log)", reps)
set logscale x 4
set logscale y
set format x "%.0b %BB"
set key inside left top
do for [i=1:words(caches)] {
	c = word(caches, i) + 0
	set arrow i from c, graph 0 to c, graph 1 nohead dashtype 3 linecolor rgb "gray50"
	set label i word(cachenames, i) at c, graph 0.04 offset 0.5, 0 textcolor rgb "gray30"
}
set label 100 sprintf("arithmetic loop: %.3g / %.3g / %.3g ns per step (none / aligned / split)", \
	word(arith, 1) + 0, word(arith, 2) + 0, word(arith, 3) + 0) at graph 0.02, graph 0.75 noenhanced
plot datafile using 1:3:4:5 with yerrorlines pointtype 7 title "no load", \
     datafile using 1:6:7:8 with yerrorlines pointtype 5 title "aligned LOCK loop", \
     datafile using 1:9:10:11 with yerrorlines pointtype 9 title "split LOCK loop"
