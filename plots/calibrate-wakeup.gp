# SPDX-License-Identifier: GPL-2.0-or-later
# make calibrate: how late a thread on the victim CPU is woken under no,
# an aligned and a split load on the load CPU, one line per wake-up probe
# (timer, futex) and statistic (p50, p99, max of each rep's wake-ups;
# medians over reps with 95 % intervals). bench/experiment/calibrate.sh sets
# datafile (calibration.jq cal_wakeup_dat: a block per series), series
# (their names), run, cpu, victim_cpu, load_cpu, load_form, reps,
# wake_interval (us) and wake_sched.
load "plots/common.gp"
set title sprintf("wake-up on CPU %d every %g us (%s), load on CPU %d (lock %s); %s; run %s", \
	victim_cpu, wake_interval, wake_sched, load_cpu, load_form, cpu, run) noenhanced
set xlabel "load on the other CPU"
set ylabel sprintf("us late (median of %d reps, 95 %% interval; log)", reps)
set logscale y
set xrange [-0.3:2.3]
set xtics ("none" 0, "aligned LOCK loop" 1, "split LOCK loop" 2)
set key outside right top noenhanced
# timer solid, futex dashed; p50, p99, max one colour each
plot for [i=1:words(series)] datafile index (i - 1) using 4:($5 / 1000):($6 / 1000):($7 / 1000) \
	with yerrorlines linetype (word(series, i)[1:5] eq "futex" ? 8 : 0) + (i - 1) % 3 + 1 \
	pointtype 4 + 2 * ((i - 1) % 3) title word(series, i)
