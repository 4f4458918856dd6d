/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Small numeric helpers of the statistics: a reproducible PRNG, a qsort
 * comparator and percentiles of sorted values. The inference itself (rank
 * tests and intervals over reps) is in reptest.h.
 */
#ifndef SLB_STATS_H
#define SLB_STATS_H

#include <stdint.h>

/* Deterministic PRNG (xorshift64*) so reports are reproducible. */
uint64_t stats_rand(uint64_t *state);

/* qsort comparator for doubles. */
int stats_cmp_double(const void *x, const void *y);

/* Percentile (0..1) of sorted values, linear interpolation. */
double sorted_percentile(const double *v, int n, double p);

#endif
