/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Inference with the rep (one guest boot) as the unit of replication: the
 * samples inside one boot are autocorrelated and share that boot's state,
 * so two scenarios are compared on one value per rep (say the rep's
 * p99.9), never on their pooled samples.
 *
 *   reptest_p        exact two-sided permutation test of Mann-Whitney's U
 *   reptest_shift    Hodges-Lehmann shift with its distribution-free CI
 *   reptest_median   one quantity's median over reps with its
 *                    distribution-free CI
 *
 * When the reps are pairs (rep k of every scenario runs with seed k), the
 * per-pair differences are the unit instead:
 *
 *   reptest_signed_p exact two-sided Wilcoxon signed-rank test
 *   reptest_walsh    Hodges-Lehmann on the Walsh averages with its exact CI
 *
 * and reptest_reps_needed says how many reps (or pairs) a question takes.
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
 * The median of the n values x (not reordered) and its confidence
 * interval at level 1 - alpha from order statistics: the k-th smallest and
 * k-th largest value, k the largest with P(Binomial(n, 1/2) < k) <=
 * alpha / 2 (6 values at least for 95 %: k = 1, coverage 1 - 2/64).
 * Returns 0, or -1 (lo and hi NaN, est still the median when n > 0) when n
 * is too small for any interval at that level.
 */
int reptest_median(const double *x, int n, double alpha, double *est, double *lo, double *hi);

/*
 * Smallest total number of reps, split evenly, for which a two-sided exact
 * test can reach p < alpha at all (e.g. 8 = 4 + 4 for 0.05).
 */
int reptest_min_reps(double alpha);

/*
 * Two-sided p of Wilcoxon's signed-rank statistic for the n paired
 * differences d: zero differences are dropped (Wilcoxon's rule), tied |d|
 * get mid-ranks, and the null distribution is that of the observed ranks
 * over all 2^m sign patterns of the m non-zero differences (exact, by
 * convolution). 1 when no difference is non-zero. 6 pairs all on one side
 * give 2/64 = 0.03125, the least 6 pairs can give.
 */
double reptest_signed_p(const double *d, int n);

/*
 * Hodges-Lehmann estimate of the centre of the paired differences d (the
 * median of the n(n+1)/2 Walsh averages (d_i + d_j) / 2, i <= j) and its
 * interval at level 1 - alpha: the k-th smallest and k-th largest Walsh
 * average, k from the exact null distribution of the signed-rank sum
 * (Hollander & Wolfe, Nonparametric Statistical Methods, 3.2). With ties
 * among the d the interval is conservative (it covers at least 1 - alpha).
 * Returns 0, or -1 (lo and hi NaN) when n is too small for any interval
 * at that level (n < 6 at 95 %).
 */
int reptest_walsh(const double *d, int n, double alpha, double *est, double *lo, double *hi);

/* Smallest number of pairs for which the signed-rank test can reach p < alpha (6 for 0.05). */
int reptest_min_pairs(double alpha);

/* 1 when two of the n values are equal (a tie), else 0. */
int reptest_ties(const double *v, int n);

/* Sample standard deviation of v (n - 1 in the denominator); 0 when n < 2. */
double reptest_sd(const double *v, int n);

/*
 * Reps a question takes, from a normal approximation with the observed
 * spread sd (of the per-pair differences when paired, else the pooled
 * spread of the per-rep values) and the rank tests' efficiency (3 / pi):
 * for a two-sided test at 5 % to find a shift of delta with 80 % power
 * (z_power = REPTEST_Z_DETECT), or for the 95 % interval to fall inside
 * +-delta when there is no shift, with 80 % power (REPTEST_Z_EQUIV).
 * Pairs when paired, else reps per side; never fewer than the exact
 * tests need to reach p < 0.05 at all (6 pairs, 4 per side). 0 when sd
 * or delta is not a positive number; at most 9999.
 */
#define REPTEST_Z_DETECT 0.841621	/* z of 80 % */
#define REPTEST_Z_EQUIV 1.281552	/* z of 90 %: both ends of the interval inside, 80 % */
int reptest_reps_needed(double sd, double delta, double z_power, int paired);

#endif
