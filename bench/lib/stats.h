/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Statistics on latency histograms: the Mann-Whitney U test (two-sided,
 * normal approximation with tie correction; overflows count as ties above
 * the last bucket) and bootstrap confidence intervals of a quantile over
 * repetitions (resample reps with replacement, pool, take the quantile).
 */
#ifndef SLB_STATS_H
#define SLB_STATS_H

#include "hist.h"

struct mw_result {
	double u;	/* U of a */
	double z;	/* standardised; > 0 when a tends to be larger */
	double p;	/* two-sided p-value */
	double auc;	/* U / (na * nb): P(a > b) + P(a == b) / 2 */
};

/* 0, or -1 when either histogram is empty. */
int mann_whitney(const struct hist *a, const struct hist *b, struct mw_result *r);

/* Deterministic PRNG (xorshift64*) so reports are reproducible. */
uint64_t stats_rand(uint64_t *state);

/*
 * Percentile bootstrap over reps: nboot resamples of n reps with
 * replacement, each pooled, quantile q taken. Writes the 2.5 % and 97.5 %
 * points of those quantiles into lo/hi and returns 0; -1 on no data or
 * no memory. out (nboot values, sorted) may be NULL.
 */
int bootstrap_quantile(const struct hist *reps, int n, double q, int nboot, uint64_t seed,
		       double *lo, double *hi, double *out);

/* One bootstrap draw: resample n reps with replacement, pool, quantile q. */
double bootstrap_draw(const struct hist *reps, int n, double q, uint64_t *state);

/* qsort comparator for doubles. */
int stats_cmp_double(const void *x, const void *y);

/* Percentile (0..1) of sorted values, linear interpolation. */
double sorted_percentile(const double *v, int n, double p);

#endif
