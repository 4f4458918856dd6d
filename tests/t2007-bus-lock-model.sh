#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# The bus-lock model under lock-step (patch/qemu 0004-0005): a split lock
# holds the bus for bus-lock-ns of its issuer's clock, and another vCPU
# waits only where it runs into that window, in its own time. So a vCPU
# that sleeps through split locks owes nothing on waking (the model before
# charged a sleeper the whole round's bus time: with a 1 ms quantum every
# wake-up paid about 1 ms), and what cyclictest sees does not hang on the
# quantum (before: split-off's p99.9 was x2.3 apart between a 1 us and a
# 10 us quantum, its median x3.6).
# Guest runs: split-off, 6 reps (seeds 1-6) of 3 s at a 1 us and a 10 us
# quantum, and one of 3 s at a 1 ms quantum.
# Why 6 seeds, their median and x1.5: a seed sets where the wake-ups fall
# against the housekeeping vCPU's tick, and one rep's p99.9 sits at one of
# two levels (about 90 or 150-185 us) that a seed picks anew with each
# guest image and QEMU. The pool of 6 followed a single rep at the upper
# level (pooled 144 against 91 us, x1.58, with 1 us quantum reps at 148,
# 89, 90, 90, 90, 89 and 10 us ones at 89-93); the median of the reps
# does not (90 against 90.5). The fault moved every wake-up (p99.9 x2.3).
# Not checked: the latency median (p50), x1.3-1.5 apart between the
# quanta, a quantum dependence of the all-stall model's turn-taking that
# is left open.
. "$(dirname "$0")/lib.sh"
t_require_guest "bus-lock model tests"

for q in 1000 10000; do
	"$T_ROOT/bench/study.sh" --scenarios split-off --duration 3 --reps 6 --jobs 1 --clock virtual --bus-lock-model all \
		--quantum-ns "$q" --results "$T_TMP" --id "q$q" >"$T_TMP/q$q.out" 2>&1 &
done
wait
t_boot "$T_TMP/q1ms" -j "$(t_study_job slb-load:split q1ms)" --clock virtual -a split_lock_detect=off -t 900 --quantum-ns 1000000

all_ok() {
	local q
	for q in 1000 10000; do
		[ "$(ls "$T_TMP/q$q"/split-off/rep*/files/hist.txt 2>/dev/null | wc -l)" = 6 ] ||
			{ echo "quantum $q: not 6 reps"; tail -n 5 "$T_TMP/q$q.out"; return 1; }
	done
	t_outcome "$T_TMP/q1ms" ok
}
t_ok "split-off at quanta of 1 us, 10 us (6 reps each) and 1 ms: every guest finishes" all_ok

# pooled FIELD FILE...: FIELD (p999_us, max_us) of the pooled histograms.
pooled() {
	local field=$1
	shift
	"$HOSTBIN/slb-hist" --json "$@" | jq -r ".histograms[-1].$field"
}
# within A B X: A / B and B / A both <= X
within() { awk -v a="$1" -v b="$2" -v x="$3" 'BEGIN { if (a <= 0 || b <= 0 || a / b > x || b / a > x) { printf "%s and %s are more than x%s apart\n", a, b, x; exit 1 } }'; }

t_ok "a vCPU asleep through split locks owes nothing: 1 ms quantum, split-off's max < 500 us" \
	awk -v m="$(pooled max_us "$T_TMP/q1ms/files/hist.txt")" 'BEGIN { if (m == "" || m >= 500) { print "max " m " us"; exit 1 } }'
# median_p999 FILE...: the median of the reps' p99.9 (the rep is the unit)
median_p999() {
	local f
	for f in "$@"; do pooled p999_us "$f"; done | sort -n | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}
t_ok "split-off's median p99.9 of 6 seeds at a 1 us and a 10 us quantum: within x1.5" \
	within "$(median_p999 "$T_TMP"/q1000/split-off/rep*/files/hist.txt)" \
	"$(median_p999 "$T_TMP"/q10000/split-off/rep*/files/hist.txt)" 1.5
# Not checked: the largest wake-up, which has come out up to x1.33 apart.
t_ok "the offender pays its own bus locks at every quantum: ~1000 ns per split lock" \
	sh -c "for f in '$T_TMP'/q1000/split-off/rep1 '$T_TMP'/q10000/split-off/rep1 '$T_TMP'/q1ms; do [ -s \$f/files/load.json ] && jq -e '.ns_per_op > 900 and .ns_per_op < 1300' \$f/files/load.json >/dev/null || exit 1; done"
