# SPDX-License-Identifier: GPL-2.0-or-later
# Maximum latency of each rep, as points per scenario. Needs common.gp's variables.
load "plots/common.gp"
set title sprintf("max latency per rep, %s, run %s", emul, run) noenhanced
set ylabel sprintf("max latency (us, %s)", timebase)
set xtics rotate by -30 noenhanced
set xrange [-0.5:words(names) - 0.5]
set key off
plot datadir."/maxrep.dat" using 1:4:xtic(2) with points pointtype 7 pointsize 1.5
