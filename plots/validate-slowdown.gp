# SPDX-License-Identifier: GPL-2.0-or-later
# make validate-model: the victim's slowdown under a split load (split /
# aligned, Hodges-Lehmann over reps, 95 % intervals) against its working
# set, in the bus-lock model and natively. bench/experiment/validate-model.sh sets
# nativefile and modelfile (rows as make calibrate's slowdown.dat), run,
# native_cpu, bus_lock_ns, load_form, arith_native and arith_model (the
# arithmetic loop's ratios), levels and level_bytes (the native levels and
# the working sets that stand for them).
load "plots/common.gp"
set title sprintf("victim slowdown under a split %s load: bus-lock model (bus-lock-ns %d) vs %s; run %s", \
	load_form, bus_lock_ns, native_cpu, run) noenhanced
set xlabel "working set (random dependent loads; log)"
set ylabel "split / aligned ns per step (95 % interval; log)"
set logscale x 4
set logscale y
set format x "%.0b %BB"
set key inside left top
set offsets graph 0.02, graph 0.08, 0, 0
do for [i=1:words(levels)] {
	c = word(level_bytes, i) + 0
	set arrow i from c, graph 0 to c, graph 1 nohead dashtype 3 linecolor rgb "gray50"
	set label i word(levels, i) at c, graph 0.04 offset 0.5, 0 textcolor rgb "gray30"
}
set label 100 sprintf("arithmetic loop: model x%.3g, native x%.3g", arith_model + 0, arith_native + 0) \
	at graph 0.02, graph 0.75 noenhanced
plot 1 with lines dashtype 2 linecolor rgb "gray50" notitle, \
     modelfile using 1:3:4:5 with yerrorlines pointtype 7 linecolor rgb "#0072b2" title sprintf("model (bus-lock-ns %d)", bus_lock_ns), \
     nativefile using 1:3:4:5 with yerrorlines pointtype 9 linecolor rgb "#e51e10" title "native"
