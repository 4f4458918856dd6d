#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# The seed's start offset (slb_seed_offset_us, bench/guest/slb-lib.sh): the
# study job moves cyclictest's start by it, so that reps sample the phases
# against the 1 ms tick, cyclictest's period and the offender. Checked on
# 2000 seeds: in range, uniform, successive seeds independent (a linear
# SEED * C put every rep's phase one step from the last, so 7 reps saw one
# narrow band of phases), and the same in the guest's shell (busybox) and
# the host's (dash, for native reps).
. "$(dirname "$0")/lib.sh"
LIB=$T_ROOT/bench/guest/slb-lib.sh
N=2000

offsets() { # offsets SHELL: the offsets of seeds 1..N, one a line
	$1 -c '. "$1"; s=1; while [ "$s" -le "$2" ]; do slb_seed_offset_us "$s" 100000; s=$((s + 1)); done' sh "$LIB" "$N"
}
offsets dash >"$T_TMP/dash"
t_ok "$N seeds give $N offsets" t_line_count "$N" "$T_TMP/dash"
t_ok "seed 1's offset is 76727 us (murmur3's finaliser of 1 is 1364076727)" test "$(head -1 "$T_TMP/dash")" = 76727
in_range() { awk '$1 < 0 || $1 >= 100000 || $1 != int($1) { print "offset " $1 " outside 0..99999"; bad = 1 } END { exit bad }' "$T_TMP/dash"; }
t_ok "every offset is 0 to 99999 us" in_range

# chi2 FILE MOD: chi-square of the values mod MOD in 10 bins of residues
# (each expected in proportion to the residues it holds: 57 does not
# split into 10 equal bins); fails past 27.88 (9 degrees of freedom,
# p = 0.001).
chi2() {
	awk -v m="$2" '{ b[int(($1 % m) * 10 / m)]++; n++ }
		END { for (r = 0; r < m; r++) w[int(r * 10 / m)]++
			for (i = 0; i < 10; i++) { e = n * w[i] / m; c += (b[i] - e) ^ 2 / e }
			if (c > 27.88) { printf "chi-square %.1f over 10 bins of the offsets mod %d us (limit 27.88)\n", c, m; exit 1 } }' "$1"
}
t_ok "phase against the 1 ms tick and period is uniform" chi2 "$T_TMP/dash" 1000
t_ok "phase against a 57 us bus-lock trap is uniform" chi2 "$T_TMP/dash" 57
awk 'NR > 1 { d = $1 - p; if (d < 0) d += 100000; print d } { p = $1 }' "$T_TMP/dash" >"$T_TMP/steps"
t_ok "the step from one seed's phase to the next is uniform (seeds independent)" chi2 "$T_TMP/steps" 1000
first7() { # the default reps' phases mod 1000 us: not confined to one half
	head -7 "$T_TMP/dash" | awk '{ print $1 % 1000 }' | sort -n |
		awk 'NR == 1 { f = $1 } NR > 1 && $1 - p > g { g = $1 - p } { p = $1 }
			END { if (f + 1000 - p > g) g = f + 1000 - p
				if (g > 500) { printf "seeds 1-7: phases within %d us of 1000\n", 1000 - g; exit 1 } }'
}
t_ok "seeds 1-7 (the default reps) spread over the period" first7
if [ -x /bin/busybox ]; then # the one build-initramfs.sh copies
	offsets "/bin/busybox sh" >"$T_TMP/busybox"
	t_ok "the guest's shell (busybox) gives the same offsets" cmp "$T_TMP/dash" "$T_TMP/busybox"
else
	t_skip "the guest's shell (busybox) gives the same offsets" "busybox not installed"
fi
