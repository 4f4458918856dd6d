# SPDX-License-Identifier: GPL-2.0-or-later
# All scenarios' pooled histograms on the same axes. Needs common.gp's variables.
load "plots/common.gp"
set title sprintf("latency histograms, all scenarios, %s, run %s", emul, run) noenhanced
set xlabel sprintf("latency (us, emulated time; bins of %d us)", bin)
set ylabel "samples (log)"
set logscale y
set yrange [0.8:*]
# empty bins sit on the floor of the log axis (the data is zero-filled)
plot for [s in names] datadir."/".s.".hist" using 1:($2 > 0 ? $2 : 0.8) with steps linewidth 2 title s noenhanced
