# SPDX-License-Identifier: GPL-2.0-or-later
# make validate-study: model / native per row (the scenarios, then the
# comparisons) at p50, p99 and p99.9, on a log axis, with the 95 %
# interval (scenarios) or bounds (comparisons) where there is one; 1 is a
# model that matches, the band x0.5 to x2 is shaded. bench/experiment/validate-study.sh
# sets datafile (rows: index, "name", then value, low and high for p50,
# p99 and p99.9; NaN where there is no value), nrows, nscen (the first
# rows, the scenarios) and plottitle.
load "plots/common.gp"
set title plottitle noenhanced
set ylabel "model / native (log; 95 % CI or bounds)"
set logscale y
set grid noxtics
set key outside right top
set xtics rotate by -30 noenhanced
set xrange [-0.5:nrows - 0.5]
set style fill transparent solid 0.12 noborder
if (nscen > 0) { set arrow 1 from nscen - 0.5, graph 0 to nscen - 0.5, graph 1 nohead dashtype 3 linecolor rgb "gray40" }
set label 1 "scenarios" at graph 0.01, graph 0.96 textcolor rgb "gray30"
set label 2 "comparisons" at nscen - 0.4, graph 0.96 textcolor rgb "gray30"
plot '+' using 1:(0.5):(2) with filledcurves linecolor rgb "#009e73" title "x0.5 to x2", \
     1 with lines linecolor rgb "gray30" notitle, \
     datafile using ($1 - 0.15):3:4:5:xtic(2) with yerrorbars pointtype 7 linecolor rgb "#0072b2" title "p50", \
     datafile using 1:6:7:8 with yerrorbars pointtype 9 linecolor rgb "#e69f00" title "p99", \
     datafile using ($1 + 0.15):9:10:11 with yerrorbars pointtype 5 linecolor rgb "#e51e10" title "p99.9"
