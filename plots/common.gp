# SPDX-License-Identifier: GPL-2.0-or-later
# Shared settings of the study's plots; loaded by the other scripts after
# bench/plots.sh sets: datadir, out (file without extension), fmt (png|svg),
# names (space-separated scenario names), run (run id).
if (fmt eq "svg") { set terminal svg size 1000,600 dynamic font "sans,12" } else { set terminal pngcairo size 1000,600 font "sans,10" }
set output out.".".fmt
set grid
set key outside right top
emul = "emulated (QEMU TCG)"
