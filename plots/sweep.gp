# SPDX-License-Identifier: GPL-2.0-or-later
# Isolated-vCPU latency of split-off against the modelled bus-lock cost
# (make bench-sweep). bench/sweep.sh sets datafile, deadline (us), run.
load "plots/common.gp"
set title sprintf("split locks vs bus-lock cost, virtual time (QEMU TCG icount), run %s", run) noenhanced
set xlabel "bus-lock cost per split lock (ns, log)"
set ylabel "latency on the isolated vCPU (us, virtual time, log)"
set logscale xy
set key inside left top
plot datafile using 1:2 with linespoints pointtype 7 title "p99", \
     datafile using 1:3 with linespoints pointtype 5 title "p99.9", \
     datafile using 1:4 with linespoints pointtype 9 title "max", \
     datafile using 1:5 with linespoints dashtype 2 title "aligned control p99.9", \
     deadline with lines linewidth 2 linecolor rgb "red" title sprintf("%d us deadline", deadline)
