// SPDX-License-Identifier: GPL-2.0-or-later
/* Unit tests of the rep-level rank inference (bench/lib/reptest.c). */
#include "lib/reptest.h"
#include "check.h"

#include <math.h>

int main(void)
{
	double a3[] = { 1, 2, 3 }, b3[] = { 11, 12, 13 };
	double a4[] = { 1, 2, 3, 4 }, b4[] = { 11, 12, 13, 14 };
	double a6[] = { 1, 2, 3, 4, 5, 6 }, b6[] = { 11, 12, 13, 14, 15, 16 };
	double same[] = { 5, 5, 5 }, est, lo, hi;
	double m5[] = { 5, 1, 4, 2, 3 }, m6[] = { 6, 1, 5, 2, 4, 3 }, m8[] = { 8, 1, 7, 2, 6, 3, 5, 4 };
	double m9[] = { 9, 1, 8, 2, 7, 3, 6, 4, 5 };

	CHECK(fabs(reptest_p(b3, 3, a3, 3) - 0.1) < 1e-9, "3 vs 3 reps, fully separated: exact p = 2/20 = 0.1");
	CHECK(fabs(reptest_p(b4, 4, a4, 4) - 2.0 / 70) < 1e-9, "4 vs 4 reps, fully separated: exact p = 2/70");
	CHECK(reptest_p(same, 3, same, 3) == 1, "all ties: p = 1");
	CHECK(reptest_min_reps(0.05) == 8, "a two-sided 5 %% test needs 4 + 4 reps at least");
	CHECK(reptest_shift(b3, 3, a3, 3, 0.05, &est, &lo, &hi) == -1 && isnan(lo) && est == 10,
	      "3 vs 3 reps: no 95 %% interval exists (it used to be the range of the reps), estimate 10");
	CHECK(reptest_shift(b4, 4, a4, 4, 0.05, &est, &lo, &hi) == 0 && lo == 7 && hi == 13 && est == 10,
	      "4 vs 4 reps: 95 %% interval = smallest and largest difference (k = 1)");
	CHECK(reptest_shift(b6, 6, a6, 6, 0.05, &est, &lo, &hi) == 0 && lo > 5 && hi < 15 && lo < 10 && hi > 10,
	      "6 vs 6 reps: the interval is inside the range of differences and holds the estimate");
	CHECK(reptest_p(b6, 6, a6, 6) < 0.01, "6 vs 6 reps, fully separated: p < 0.01");

	/* Paired reps (seed k in both scenarios): the differences are the unit. */
	double d6[] = { 0.2, 0.5, 0.1, 0.4, 0.3, 0.6 }, d6one[] = { 0.2, 0.5, -0.1, 0.4, 0.3, 0.6 };
	double d8[] = { 1, 2, 3, 4, 5, 6, 7, 8 }, z6[] = { 0, 0, 0, 0, 0, 0 }, tie6[] = { 0, 0, 0, 0.3, 0, 0 };
	double d7tie[] = { 1, 1, 1, 1, 1, 1, 1 };

	CHECK(fabs(reptest_signed_p(d6, 6) - 2.0 / 64) < 1e-12,
	      "6 pairs all on one side: exact signed-rank p = 2/64 = 0.03125 (got %g)", reptest_signed_p(d6, 6));
	CHECK(fabs(reptest_signed_p(d6one, 6) - 4.0 / 64) < 1e-12,
	      "6 pairs, the smallest one reversed: p = 4/64 (got %g)", reptest_signed_p(d6one, 6));
	CHECK(fabs(reptest_signed_p(d8, 8) - 2.0 / 256) < 1e-12, "8 pairs all on one side: p = 2/256 = 0.0078");
	CHECK(reptest_signed_p(z6, 6) == 1, "all pairs equal: p = 1");
	CHECK(reptest_signed_p(tie6, 6) == 1, "one non-zero difference of 6: p = 1 (zeros dropped)");
	CHECK(fabs(reptest_signed_p(d7tie, 7) - 2.0 / 128) < 1e-12, "7 tied differences on one side: p = 2/128");
	CHECK(reptest_min_pairs(0.05) == 6, "a two-sided 5 %% signed-rank test needs 6 pairs at least");
	CHECK(reptest_walsh(d6, 5, 0.05, &est, &lo, &hi) == -1 && isnan(lo), "5 pairs: no 95 %% interval exists");
	CHECK(reptest_walsh(d6, 6, 0.05, &est, &lo, &hi) == 0 && fabs(lo - 0.1) < 1e-12 && fabs(hi - 0.6) < 1e-12 &&
	      fabs(est - 0.35) < 1e-12, "6 pairs: 95 %% interval = smallest and largest difference (k = 1), estimate 0.35");
	CHECK(reptest_walsh(d8, 8, 0.05, &est, &lo, &hi) == 0 && lo == 2 && hi == 7 && est == 4.5,
	      "8 pairs 1..8: interval = 4th smallest and largest Walsh average (2, 7, as R's wilcox.test; got %g, %g)", lo, hi);
	CHECK(reptest_walsh(z6, 6, 0.05, &est, &lo, &hi) == 0 && est == 0 && lo == 0 && hi == 0,
	      "6 identical pairs: estimate 0, interval 0-0");
	CHECK(reptest_ties(d7tie, 7) && !reptest_ties(d6, 6), "ties found where two values are equal, not elsewhere");
	CHECK(reptest_reps_needed(0, 0.18, REPTEST_Z_DETECT, 1) == 0, "no spread: no estimate of the reps needed");
	CHECK(reptest_reps_needed(0.01, 0.18, REPTEST_Z_DETECT, 1) == 6 && reptest_reps_needed(0.01, 0.18, REPTEST_Z_DETECT, 0) == 4,
	      "little spread: the least the exact tests need (6 pairs, 4 per side)");
	CHECK(reptest_reps_needed(0.2, log(1.2), REPTEST_Z_DETECT, 1) == 10,
	      "sd 0.2 of log-ratios, x1.2 to detect: 10 pairs (got %d)", reptest_reps_needed(0.2, log(1.2), REPTEST_Z_DETECT, 1));
	CHECK(reptest_reps_needed(0.2, log(1.2), REPTEST_Z_EQUIV, 1) > reptest_reps_needed(0.2, log(1.2), REPTEST_Z_DETECT, 1),
	      "showing equivalence takes more pairs than detecting the same shift");

	CHECK(reptest_median(m5, 5, 0.05, &est, &lo, &hi) == -1 && est == 3 && isnan(lo),
	      "median of 5 values: 3, and no 95 %% interval (the range covers only 1 - 2/32)");
	CHECK(reptest_median(m6, 6, 0.05, &est, &lo, &hi) == 0 && est == 3.5 && lo == 1 && hi == 6,
	      "median of 6 values: 3.5, 95 %% interval the range (k = 1)");
	CHECK(m6[0] == 6 && m6[5] == 3, "reptest_median leaves its input in place");
	CHECK(reptest_median(m8, 8, 0.05, &est, &lo, &hi) == 0 && est == 4.5 && lo == 1 && hi == 8,
	      "8 values: P(B <= 1) = 9/256 > 0.025, so still k = 1");
	CHECK(reptest_median(m9, 9, 0.05, &est, &lo, &hi) == 0 && est == 5 && lo == 2 && hi == 8,
	      "9 values: P(B <= 1) = 10/512 <= 0.025, so k = 2: the 2nd smallest and largest");
	CHECK_EXIT();
}
