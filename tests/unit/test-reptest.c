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
	CHECK_EXIT();
}
