// SPDX-License-Identifier: GPL-2.0-or-later
/* cyclictest histogram parsing and percentiles; see hist.h. */
#include "hist.h"

#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

static int grow(struct hist *h, size_t need)
{
	size_t n = h->nbuckets ? h->nbuckets : 64;
	uint64_t *c;

	if (need <= h->nbuckets)
		return 0;
	while (n < need)
		n *= 2;
	c = realloc(h->count, n * sizeof(*c));
	if (!c)
		return -1;
	memset(c + h->nbuckets, 0, (n - h->nbuckets) * sizeof(*c));
	h->count = c;
	h->nbuckets = n;
	return 0;
}

/* Sum the numbers after "label" on a summary line; -1 if none parse. */
static double sum_after(const char *line, const char *label, int want_max, int want_min)
{
	const char *p = line + strlen(label);
	double acc = -1, v;
	char *end;

	for (;;) {
		v = strtod(p, &end);
		if (end == p)
			break;
		if (acc < 0)
			acc = v;
		else if (want_max)
			acc = v > acc ? v : acc;
		else if (want_min)
			acc = v < acc ? v : acc;
		else
			acc += v;
		p = end;
	}
	return acc;
}

/* The col-th (0-based) number after "label" on a summary line; -1 if none. */
static double nth_after(const char *line, const char *label, int col)
{
	const char *p = line + strlen(label);
	char *end;
	double v;

	for (int i = 0;; i++, p = end) {
		v = strtod(p, &end);
		if (end == p)
			return -1;
		if (i == col)
			return v;
	}
}

/* The summary line's value: all columns summed (min, max) when col < 0, else column col. */
static double summary_value(const char *line, const char *label, int col, int want_max, int want_min)
{
	return col < 0 ? sum_after(line, label, want_max, want_min) : nth_after(line, label, col);
}

int hist_parse(FILE *in, struct hist *h, char *err, size_t errlen)
{
	return hist_parse_column(in, h, -1, err, errlen);
}

int hist_parse_column(FILE *in, struct hist *h, int col, char *err, size_t errlen)
{
	char line[4096];
	unsigned long lineno = 0;
	double avg_sum = -1;

	memset(h, 0, sizeof(*h));
	h->min_us = h->max_us = -1;
	h->avg_us = -1;
	while (fgets(line, sizeof(line), in)) {
		char *p = line, *end;
		unsigned long long bucket, c;
		int cols = 0;

		lineno++;
		if (line[0] == '#') {
			double v;

			if (!strncmp(line, "# Total:", 8) && (v = summary_value(line, "# Total:", col, 0, 0)) >= 0)
				h->total = (uint64_t)v;
			else if (!strncmp(line, "# Min Latencies:", 16) && (v = summary_value(line, "# Min Latencies:", col, 0, 1)) >= 0)
				h->min_us = (long)v;
			else if (!strncmp(line, "# Max Latencies:", 16) && (v = summary_value(line, "# Max Latencies:", col, 1, 0)) >= 0)
				h->max_us = (long)v;
			else if (!strncmp(line, "# Avg Latencies:", 16))
				avg_sum = summary_value(line, "# Avg Latencies:", col, 0, 0);
			else if (!strncmp(line, "# Histogram Overflows:", 22) &&
				 (v = summary_value(line, "# Histogram Overflows:", col, 0, 0)) >= 0)
				h->overflows = (uint64_t)v;
			continue;
		}
		while (isspace((unsigned char)*p))
			p++;
		if (!*p)
			continue;
		bucket = strtoull(p, &end, 10);
		if (end == p || bucket > 10000000) {
			snprintf(err, errlen, "line %lu: expected '<bucket> <count>...', got '%.40s'", lineno, line);
			hist_free(h);
			return -1;
		}
		if (grow(h, (size_t)bucket + 1)) {
			snprintf(err, errlen, "out of memory");
			hist_free(h);
			return -1;
		}
		for (p = end;; p = end) {
			while (*p == ' ' || *p == '\t')
				p++;
			if (!isdigit((unsigned char)*p))
				break;	/* a count is digits only: no sign */
			errno = 0;
			c = strtoull(p, &end, 10);
			if (errno || h->samples + c < h->samples) {
				snprintf(err, errlen, "line %lu: count out of range in '%.40s'", lineno, line);
				hist_free(h);
				return -1;
			}
			if (col < 0 || cols == col) {
				h->count[bucket] += c;
				h->samples += c;
			}
			cols++;
		}
		while (isspace((unsigned char)*p))
			p++;
		if (!cols || *p) {
			snprintf(err, errlen, "line %lu: bad count column in '%.40s'", lineno, line);
			hist_free(h);
			return -1;
		}
		if (cols > h->threads)
			h->threads = cols;
	}
	if (ferror(in)) {
		snprintf(err, errlen, "read error");
		hist_free(h);
		return -1;
	}
	if (!h->threads && h->overflows) {
		/* every sample beyond the histogram: a rep all the same */
		h->threads = 1;
	} else if (!h->threads) {
		snprintf(err, errlen, "no histogram lines");
		hist_free(h);
		return -1;
	}
	if (h->total && h->total != h->samples) {
		snprintf(err, errlen, "'# Total: %llu' but the buckets hold %llu samples",
			 (unsigned long long)h->total, (unsigned long long)h->samples);
		hist_free(h);
		return -1;
	}
	if (col >= h->threads && h->threads) {
		snprintf(err, errlen, "no column %d: the histogram has %d", col + 1, h->threads);
		hist_free(h);
		return -1;
	}
	if (avg_sum >= 0)
		h->avg_us = col < 0 ? avg_sum / h->threads : avg_sum;
	return 0;
}

/* Whether a bucket line has a count that is not zero (fields 2..n, as awk's $i + 0). */
static int bucket_has_count(const char *line)
{
	const char *p = line;
	int field = 0;

	for (;;) {
		while (*p == ' ' || *p == '\t' || *p == '\n')
			p++;
		if (!*p)
			return 0;
		if (++field > 1 && strtod(p, NULL) != 0)
			return 1;
		while (*p && *p != ' ' && *p != '\t' && *p != '\n')
			p++;
	}
}

int hist_compact(FILE *in, FILE *out)
{
	char *line = NULL;
	size_t cap = 0;
	ssize_t len;
	int rc = 0;

	while ((len = getline(&line, &cap, in)) >= 0) {
		if (line[0] != '#' && !bucket_has_count(line))
			continue;
		/* awk ends every line it prints, the file's last one too */
		if (fwrite(line, 1, (size_t)len, out) != (size_t)len ||
		    (line[len - 1] != '\n' && fputc('\n', out) == EOF)) {
			rc = -1;
			break;
		}
	}
	if (!rc && ferror(in))
		rc = -1;
	free(line);
	return rc;
}

void hist_free(struct hist *h)
{
	free(h->count);
	h->count = NULL;
	h->nbuckets = 0;
}

/* How many of n samples lie at or below quantile q: at least 1. */
static uint64_t quantile_rank(uint64_t n, double q)
{
	uint64_t need = (uint64_t)(q * (double)n + 0.999999);

	return need ? need : 1;
}

long hist_quantile(const struct hist *h, double q)
{
	uint64_t n = h->samples + h->overflows, need, acc = 0;

	if (!n)
		return -1;
	need = quantile_rank(n, q);
	for (size_t b = 0; b < h->nbuckets; b++) {
		acc += h->count[b];
		if (acc >= need)
			return (long)b;
	}
	/* The quantile lies among the overflows: the best bound is the max. */
	return h->max_us >= 0 ? h->max_us : (long)h->nbuckets;
}

int hist_beyond(const struct hist *h, double q)
{
	return h->overflows && quantile_rank(h->samples + h->overflows, q) > h->samples;
}

void hist_stats_json(FILE *out, const struct hist_stats *s)
{
	static const char *const names[] = { "p50", "p90", "p99", "p99.9" };
	int n = 0;

	if (!s->samples && !s->overflows) {
		fprintf(out, "\"samples\": 0, \"overflows\": 0, \"min_us\": null, \"avg_us\": null, "
			"\"p50_us\": null, \"p90_us\": null, \"p99_us\": null, \"p999_us\": null, "
			"\"max_us\": null, \"beyond_limit\": []");
		return;
	}
	fprintf(out, "\"samples\": %llu, \"overflows\": %llu, \"min_us\": %ld, \"avg_us\": %.2f, "
		"\"p50_us\": %ld, \"p90_us\": %ld, \"p99_us\": %ld, \"p999_us\": %ld, \"max_us\": %ld, "
		"\"beyond_limit\": [",
		(unsigned long long)s->samples, (unsigned long long)s->overflows, s->min_us,
		s->avg_us, s->p50, s->p90, s->p99, s->p999, s->max_us);
	for (int i = 0; i < 4; i++)
		if (s->beyond & (1u << i))
			fprintf(out, "%s\"%s\"", n++ ? ", " : "", names[i]);
	fputc(']', out);
}

void hist_stats(const struct hist *h, struct hist_stats *s)
{
	static const double qs[] = { 0.50, 0.90, 0.99, 0.999 };
	long *const quantiles[] = { &s->p50, &s->p90, &s->p99, &s->p999 };
	double sum = 0;

	memset(s, 0, sizeof(*s));
	s->samples = h->samples;
	s->overflows = h->overflows;
	s->min_us = s->max_us = -1;
	for (size_t b = 0; b < h->nbuckets; b++) {
		if (!h->count[b])
			continue;
		if (s->min_us < 0)
			s->min_us = (long)b;
		s->max_us = (long)b;
		sum += (double)b * (double)h->count[b];
	}
	s->avg_us = h->samples ? sum / (double)h->samples : -1;
	/* The summary lines are exact where the buckets are not (overflows). */
	if (h->max_us > s->max_us)
		s->max_us = h->max_us;
	if (h->min_us >= 0 && (s->min_us < 0 || h->min_us < s->min_us))
		s->min_us = h->min_us;
	if (!h->samples && !h->overflows)
		s->min_us = s->max_us = -1;
	/* quantile i sets HIST_BEYOND bit i (P50 = 1, P90 = 2, P99 = 4, P999 = 8) */
	for (int i = 0; i < 4; i++) {
		*quantiles[i] = hist_quantile(h, qs[i]);
		if (hist_beyond(h, qs[i]))
			s->beyond |= 1u << i;
	}
}

int64_t hist_co_correct(const struct hist *src, long interval_us, struct hist *dst)
{
	int64_t added = 0;

	*dst = (struct hist){ .min_us = src->min_us, .max_us = src->max_us, .avg_us = -1,
			      .threads = src->threads };
	if (hist_add(dst, src))
		return -1;
	if (interval_us <= 0)
		return 0;
	for (size_t b = (size_t)interval_us; b < src->nbuckets; b++) {
		if (!src->count[b])
			continue;
		/* HdrHistogram: only while the reconstructed value is >= one interval */
		for (long v = (long)b - interval_us; v >= interval_us; v -= interval_us) {
			dst->count[v] += src->count[b];
			dst->samples += src->count[b];
			dst->total += src->count[b];
			added += (int64_t)src->count[b];
		}
	}
	return added;
}

int hist_add(struct hist *dst, const struct hist *src)
{
	if (grow(dst, src->nbuckets))
		return -1;
	for (size_t b = 0; b < src->nbuckets; b++)
		dst->count[b] += src->count[b];
	dst->samples += src->samples;
	dst->overflows += src->overflows;
	dst->total += src->total;
	if (src->max_us > dst->max_us)
		dst->max_us = src->max_us;
	if (src->min_us >= 0 && (dst->min_us < 0 || src->min_us < dst->min_us))
		dst->min_us = src->min_us;
	if (src->threads > dst->threads)
		dst->threads = src->threads;
	return 0;
}
