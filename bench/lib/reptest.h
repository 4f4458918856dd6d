/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Inference with the rep (one guest boot) as the unit of replication: the
 * samples inside one boot are autocorrelated and share that boot's state,
 * so two scenarios are compared on one value per rep (say the rep's
 * p99.9), never on their pooled samples.
 *
 *   reptest_p        exact two-sided permutation test of Mann-Whitney's U
 *   reptest_shift    Hodges-Lehmann shift with its distribution-free CI
 */
#ifndef SLB_REPTEST_H
#define SLB_REPTEST_H

/*
 * Two-sided p-value of U (ties count one half) for x against y, over all
 * C(nx + ny, nx) ways to split the reps (exact up to 200000 splits, else
 * that many seeded random splits). 1 when either side is empty.
 */
double reptest_p(const double *x, int nx, const double *y, int ny);

/*
 * Hodges-Lehmann estimate of the shift of x over y (the median of the
 * nx * ny differences x_i - y_j) and its confidence interval at level
 * 1 - alpha: the k-th smallest and k-th largest difference, k from the
 * exact null distribution of U (Lehmann, Nonparametrics, 1975, ch. 2).
 * Returns 0, or -1 (lo and hi NaN) when nx and ny are too small for any
 * interval at that level.
 */
int reptest_shift(const double *x, int nx, const double *y, int ny, double alpha, double *est,
		  double *lo, double *hi);

/*
 * Smallest total number of reps, split evenly, for which a two-sided exact
 * test can reach p < alpha at all (e.g. 8 = 4 + 4 for 0.05).
 */
int reptest_min_reps(double alpha);

#endif
