// SPDX-License-Identifier: GPL-2.0-or-later
/* Mann-Whitney U on histograms and bootstrap CIs over reps; see stats.h. */
#include "stats.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static uint64_t count_at(const struct hist *h, size_t b)
{
	return b < h->nbuckets ? h->count[b] : 0;
}

int mann_whitney(const struct hist *a, const struct hist *b, struct mw_result *r)
{
	double na = (double)(a->samples + a->overflows), nb = (double)(b->samples + b->overflows);
	double n = na + nb, below_b = 0, u = 0, ties = 0, mean, var;
	size_t nbk = a->nbuckets > b->nbuckets ? a->nbuckets : b->nbuckets;

	memset(r, 0, sizeof(*r));
	if (na <= 0 || nb <= 0)
		return -1;
	/* Buckets, then the overflows as one more bucket above them all. */
	for (size_t k = 0; k <= nbk; k++) {
		double ca = (double)(k < nbk ? count_at(a, k) : a->overflows);
		double cb = (double)(k < nbk ? count_at(b, k) : b->overflows);
		double t = ca + cb;

		u += ca * (below_b + cb / 2);
		below_b += cb;
		ties += t * t * t - t;
	}
	mean = na * nb / 2;
	var = na * nb / 12 * ((n + 1) - ties / (n * (n - 1)));
	r->u = u;
	r->auc = u / (na * nb);
	if (var <= 0) {
		r->z = 0;
		r->p = 1;
		return 0;
	}
	r->z = (u - mean) / sqrt(var);
	r->p = erfc(fabs(r->z) / sqrt(2.0));
	return 0;
}

uint64_t stats_rand(uint64_t *s)
{
	*s ^= *s >> 12;
	*s ^= *s << 25;
	*s ^= *s >> 27;
	return *s * 2685821657736338717ull;
}

int stats_cmp_double(const void *x, const void *y)
{
	double a = *(const double *)x, b = *(const double *)y;

	return (a > b) - (a < b);
}

double sorted_percentile(const double *v, int n, double p)
{
	double pos;
	int i;

	if (n <= 0)
		return NAN;
	pos = p * (n - 1);
	i = (int)pos;
	if (i >= n - 1)
		return v[n - 1];
	return v[i] + (pos - i) * (v[i + 1] - v[i]);
}

double bootstrap_draw(const struct hist *reps, int n, double q, uint64_t *st)
{
	struct hist pool = { .min_us = -1, .max_us = -1, .avg_us = -1 };
	double v;

	for (int k = 0; k < n; k++)
		if (hist_add(&pool, &reps[stats_rand(st) % (uint64_t)n])) {
			hist_free(&pool);
			return NAN;
		}
	v = (double)hist_quantile(&pool, q);
	hist_free(&pool);
	return v;
}

int bootstrap_quantile(const struct hist *reps, int n, double q, int nboot, uint64_t seed,
		       double *lo, double *hi, double *out)
{
	double *vals;
	uint64_t st = seed ? seed : 0x9e3779b97f4a7c15ull;

	if (n <= 0 || nboot <= 0)
		return -1;
	vals = out ? out : malloc(sizeof(*vals) * (size_t)nboot);
	if (!vals)
		return -1;
	for (int i = 0; i < nboot; i++) {
		vals[i] = bootstrap_draw(reps, n, q, &st);
		if (isnan(vals[i])) {
			if (!out)
				free(vals);
			return -1;
		}
	}
	qsort(vals, (size_t)nboot, sizeof(*vals), stats_cmp_double);
	*lo = sorted_percentile(vals, nboot, 0.025);
	*hi = sorted_percentile(vals, nboot, 0.975);
	if (!out)
		free(vals);
	return 0;
}
