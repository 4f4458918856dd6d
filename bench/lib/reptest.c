// SPDX-License-Identifier: GPL-2.0-or-later
/* Rank inference on per-rep values (see reptest.h). */
#include "reptest.h"
#include "stats.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>

#define MAX_SPLITS 200000

/* U of x over y: pairs with x_i > y_j, ties one half. */
static double u_stat(const double *x, int nx, const double *y, int ny)
{
	double u = 0;

	for (int i = 0; i < nx; i++)
		for (int j = 0; j < ny; j++)
			u += x[i] > y[j] ? 1 : x[i] == y[j] ? 0.5 : 0;
	return u;
}

static double choose(int n, int k)
{
	double c = 1;

	for (int i = 1; i <= k; i++)
		c = c * (n - k + i) / i;
	return c;
}

/* U of the split given by in[] (1: the x side) of the pooled values v. */
static double split_u(const double *v, const int *in, int n, int nx)
{
	double xs[512], ys[512];
	int a = 0, b = 0;

	for (int i = 0; i < n; i++) {
		if (in[i])
			xs[a++] = v[i];
		else
			ys[b++] = v[i];
	}
	return u_stat(xs, nx, ys, n - nx);
}

double reptest_p(const double *x, int nx, const double *y, int ny)
{
	int n = nx + ny, in[512], idx[512];
	double v[512], mid = nx * ny / 2.0, obs, extreme = 0, total = 0;
	uint64_t st = 42;

	if (nx < 1 || ny < 1 || n > 512)
		return 1;
	for (int i = 0; i < nx; i++)
		v[i] = x[i];
	for (int j = 0; j < ny; j++)
		v[nx + j] = y[j];
	obs = fabs(u_stat(x, nx, y, ny) - mid) - 1e-9;
	if (choose(n, nx) <= MAX_SPLITS) {
		/* every combination of nx of the n positions, in order */
		for (int i = 0; i < nx; i++)
			idx[i] = i;
		for (;;) {
			int k;

			for (int i = 0; i < n; i++)
				in[i] = 0;
			for (int i = 0; i < nx; i++)
				in[idx[i]] = 1;
			extreme += fabs(split_u(v, in, n, nx) - mid) >= obs;
			total++;
			for (k = nx - 1; k >= 0 && idx[k] == n - nx + k; k--)
				;
			if (k < 0)
				break;
			idx[k]++;
			for (int i = k + 1; i < nx; i++)
				idx[i] = idx[i - 1] + 1;
		}
		return extreme / total;
	}
	for (int r = 0; r < MAX_SPLITS; r++) {
		for (int i = 0; i < n; i++)
			in[i] = i < nx;
		for (int i = n - 1; i > 0; i--) {	/* Fisher-Yates */
			int j = (int)(stats_rand(&st) % (uint64_t)(i + 1)), t = in[i];

			in[i] = in[j];
			in[j] = t;
		}
		extreme += fabs(split_u(v, in, n, nx) - mid) >= obs;
	}
	/* the observed split counts too, so p is never 0 */
	return (extreme + 1) / (MAX_SPLITS + 1.0);
}

/*
 * Null distribution of U without ties: the coefficients of the Gaussian
 * binomial [m+n choose m](q), built as prod (1 - q^(n+i)) / (1 - q^i),
 * divided by C(m+n, m). Returns a malloc'ed array of m*n+1 probabilities.
 */
static double *u_null(int m, int n)
{
	int len = m * n + 1;
	double *c = calloc((size_t)len, sizeof(double)), all = choose(m + n, m);

	if (!c)
		return NULL;
	c[0] = 1;
	for (int i = 1; i <= m; i++) {
		for (int k = len - 1; k >= n + i; k--)
			c[k] -= c[k - (n + i)];
		for (int k = i; k < len; k++)
			c[k] += c[k - i];
	}
	for (int k = 0; k < len; k++)
		c[k] /= all;
	return c;
}

int reptest_shift(const double *x, int nx, const double *y, int ny, double alpha, double *est,
		  double *lo, double *hi)
{
	int nd = nx * ny, k = 0;
	double *d, *pu, cum = 0;

	*est = *lo = *hi = NAN;
	if (nx < 1 || ny < 1 || nx > 100 || ny > 100)
		return -1;
	d = malloc(sizeof(double) * (size_t)nd);
	pu = u_null(nx, ny);
	if (!d || !pu) {
		free(d);
		free(pu);
		return -1;
	}
	for (int i = 0; i < nx; i++)
		for (int j = 0; j < ny; j++)
			d[i * ny + j] = x[i] - y[j];
	qsort(d, (size_t)nd, sizeof(double), stats_cmp_double);
	*est = nd % 2 ? d[nd / 2] : (d[nd / 2 - 1] + d[nd / 2]) / 2;
	/* k: the largest count with P(U < k) <= alpha / 2 */
	while (k < nd && cum + pu[k] <= alpha / 2 + 1e-12)
		cum += pu[k++];
	free(pu);
	if (k < 1) {
		free(d);
		return -1;
	}
	*lo = d[k - 1];
	*hi = d[nd - k];
	free(d);
	return 0;
}

int reptest_median(const double *x, int n, double alpha, double *est, double *lo, double *hi)
{
	double *v, cum = 0, pk = 1;
	int k = 0;

	*est = *lo = *hi = NAN;
	if (n < 1 || n > 1000 || !(v = malloc(sizeof(double) * (size_t)n)))
		return -1;
	for (int i = 0; i < n; i++)
		v[i] = x[i];
	qsort(v, (size_t)n, sizeof(double), stats_cmp_double);
	*est = n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
	/* P(B = j) = C(n, j) / 2^n, summed while the lower tail stays within alpha / 2 */
	pk = pow(0.5, n);
	while (k < n && cum + pk <= alpha / 2 + 1e-12) {
		cum += pk;
		k++;
		pk = pk * (n - k + 1) / k;
	}
	if (k >= 1 && k <= n - k + 1) {
		*lo = v[k - 1];
		*hi = v[n - k];
	}
	free(v);
	return k >= 1 ? 0 : -1;
}

int reptest_min_reps(double alpha)
{
	for (int m = 1; m <= 100; m++)
		if (2.0 / choose(2 * m, m) < alpha)
			return 2 * m;
	return -1;
}

/* Null distribution of the sum of the chosen ones among the (integer)
 * scores r[0..m), each chosen with probability 1/2: prob[0..sum]. */
static double *subset_sums(const int *r, int m, int *sum)
{
	double *p;
	int tot = 0;

	for (int i = 0; i < m; i++)
		tot += r[i];
	p = calloc((size_t)tot + 1, sizeof(double));
	if (!p)
		return NULL;
	p[0] = 1;
	for (int i = 0, top = 0; i < m; i++) {
		top += r[i];
		for (int t = top; t >= 0; t--)
			p[t] = p[t] / 2 + (t >= r[i] ? p[t - r[i]] / 2 : 0);
	}
	*sum = tot;
	return p;
}

double reptest_signed_p(const double *d, int n)
{
	double a[512], p = 0;
	int r2[512], m = 0, tot, obs = 0;
	int sign[512];
	double *dist;

	if (n < 1 || n > 512)
		return 1;
	for (int i = 0; i < n; i++)
		if (d[i] != 0) {
			a[m] = fabs(d[i]);
			sign[m++] = d[i] > 0;
		}
	if (!m)
		return 1;
	/* doubled mid-ranks of |d| (integers) */
	for (int i = 0; i < m; i++) {
		int below = 0, same = 0;

		for (int j = 0; j < m; j++) {
			below += a[j] < a[i];
			same += a[j] == a[i];
		}
		r2[i] = 2 * below + same + 1;
		obs += sign[i] ? r2[i] : 0;
	}
	dist = subset_sums(r2, m, &tot);
	if (!dist)
		return 1;
	/* |T+ - tot/2| at least as far out as observed, both sides */
	for (int t = 0; t <= tot; t++)
		if (abs(2 * t - tot) >= abs(2 * obs - tot))
			p += dist[t];
	free(dist);
	return p > 1 ? 1 : p;
}

int reptest_walsh(const double *d, int n, double alpha, double *est, double *lo, double *hi)
{
	int nw = n * (n + 1) / 2, k = 0, r[100], tot;
	double *w, *dist, cum = 0;

	*est = *lo = *hi = NAN;
	if (n < 1 || n > 100)
		return -1;
	w = malloc(sizeof(double) * (size_t)nw);
	if (!w)
		return -1;
	for (int i = 0, x = 0; i < n; i++)
		for (int j = i; j < n; j++)
			w[x++] = (d[i] + d[j]) / 2;
	qsort(w, (size_t)nw, sizeof(double), stats_cmp_double);
	*est = nw % 2 ? w[nw / 2] : (w[nw / 2 - 1] + w[nw / 2]) / 2;
	for (int i = 0; i < n; i++)
		r[i] = i + 1;
	dist = subset_sums(r, n, &tot);
	if (!dist) {
		free(w);
		return -1;
	}
	/* k: the largest count with P(T+ < k) <= alpha / 2 */
	while (k < nw && cum + dist[k] <= alpha / 2 + 1e-12)
		cum += dist[k++];
	free(dist);
	if (k < 1) {
		free(w);
		return -1;
	}
	*lo = w[k - 1];
	*hi = w[nw - k];
	free(w);
	return 0;
}

int reptest_min_pairs(double alpha)
{
	for (int n = 1; n <= 100; n++)
		if (2 / pow(2, n) < alpha)
			return n;
	return -1;
}

int reptest_ties(const double *v, int n)
{
	for (int i = 0; i < n; i++)
		for (int j = i + 1; j < n; j++)
			if (v[i] == v[j])
				return 1;
	return 0;
}

double reptest_sd(const double *v, int n)
{
	double m = 0, ss = 0;

	if (n < 2)
		return 0;
	for (int i = 0; i < n; i++)
		m += v[i] / n;
	for (int i = 0; i < n; i++)
		ss += (v[i] - m) * (v[i] - m);
	return sqrt(ss / (n - 1));
}

int reptest_reps_needed(double sd, double delta, double z_power, int paired)
{
	const double z_alpha = 1.959964, efficiency = 3 / M_PI;
	double n;
	int least = paired ? reptest_min_pairs(0.05) : reptest_min_reps(0.05) / 2;

	if (!(sd > 0) || !(delta > 0))
		return 0;
	n = pow((z_alpha + z_power) * sd / delta, 2) / efficiency * (paired ? 1 : 2);
	if (n > 9999)
		return 9999;
	return (int)ceil(n) > least ? (int)ceil(n) : least;
}
