# SPDX-License-Identifier: GPL-2.0-or-later
# Shared settings of the study's plots; loaded by the other scripts after
# bench/report/plots.sh sets: datadir, out (file without extension), fmt (png|svg),
# names (space-separated scenario names), run (run id).
if (fmt eq "svg") { set terminal svg size 1000,600 dynamic font "sans,12" } else { set terminal pngcairo size 1000,600 font "sans,10" }
set output out.".".fmt
set grid
set key outside right top
# emul / timebase: what the latencies are; bench/report/plots.sh sets them for a
# native run (real time on a machine), else the emulator's.
if (!exists("emul")) emul = "emulated (QEMU TCG)"
if (!exists("timebase")) timebase = "emulated time"
# Line types 9-16 repeat the 8 default colours dashed, so that a plot with
# more than 8 scenarios never draws two of them alike.
palette8 = "#9400d3 #009e73 #56b4e9 #e69f00 #f0e442 #0072b2 #e51e10 #000000"
do for [i=1:8] { eval sprintf('set linetype %d linecolor rgb "%s" dashtype 2', i + 8, word(palette8, i)) }
