// SPDX-License-Identifier: GPL-2.0-or-later
/* Small numeric helpers of the statistics; see stats.h. */
#include "stats.h"

#include <math.h>

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
