# SPDX-License-Identifier: GPL-2.0-or-later
# All scenarios' pooled histograms on the same axes. Needs common.gp's variables.
load "plots/common.gp"
set title sprintf("latency histograms, all scenarios, %s, run %s", emul, run) noenhanced
set xlabel sprintf("latency (us, %s; bins of %d us)", timebase, bin)
set ylabel "samples (log)"
set logscale y
set yrange [0.8:*]
# empty bins sit on the floor of the log axis (the data is zero-filled)
# past the 8 default colours, curves repeat a colour dashed, so none is
# mistaken for another
plot for [i=1:words(names)] datadir."/".word(names, i).".hist" using 1:($2 > 0 ? $2 : 0.8) with steps \
	linewidth 2 linetype i title word(names, i) noenhanced
