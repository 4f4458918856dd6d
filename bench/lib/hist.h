/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Latency histograms as cyclictest writes them with -h/--histfile: one
 * line per 1 us bucket, "<bucket> <count thread0> [<count thread1> ...]",
 * then "# Total:", "# Min Latencies:", "# Avg Latencies:", "# Max
 * Latencies:" and "# Histogram Overflows:" lines with one value per
 * thread. hist_parse() pools the threads into one histogram,
 * hist_parse_column() keeps one.
 */
#ifndef SLB_HIST_H
#define SLB_HIST_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* Width of one bucket: cyclictest's histogram counts whole microseconds. */
#define HIST_BIN_US 1

struct hist {
	uint64_t *count;	/* count[us] = samples with that latency */
	size_t nbuckets;	/* buckets allocated (highest bucket + 1) */
	uint64_t samples;	/* sum of count[] */
	uint64_t overflows;	/* samples beyond the last bucket */
	uint64_t total;		/* "# Total:" (the buckets' sum; overflows not included) */
	long min_us, max_us;	/* from the summary lines; -1 if absent */
	double avg_us;		/* from the summary lines; -1 if absent */
	int threads;		/* count columns seen */
};

struct hist_stats {
	uint64_t samples, overflows;
	long min_us, max_us;
	double avg_us;
	long p50, p90, p99, p999;	/* us; -1 when no samples */
	/*
	 * HIST_BEYOND_* bits: the quantile lies among the overflows, past
	 * the histogram's limit; its value above is then the largest
	 * latency (an upper bound), and the tools print it as "> limit".
	 */
	unsigned beyond;
};

enum { HIST_BEYOND_P50 = 1, HIST_BEYOND_P90 = 2, HIST_BEYOND_P99 = 4, HIST_BEYOND_P999 = 8 };

/* Whether quantile q of h lies among the overflows (past the last bucket). */
int hist_beyond(const struct hist *h, double q);

/* Parse a histogram file. Returns 0, or -1 with a message in err. */
int hist_parse(FILE *in, struct hist *h, char *err, size_t errlen);

/*
 * The same, but only count column col (0-based: the thread of cyclictest,
 * one per measured CPU), with that column's summary values; col < 0 pools
 * them all (hist_parse). A column the file does not have is an error.
 */
int hist_parse_column(FILE *in, struct hist *h, int col, char *err, size_t errlen);
void hist_free(struct hist *h);

/*
 * Smallest bucket b with at least q of the samples (overflows counted as
 * beyond the last bucket) at or below b; -1 when empty.
 */
long hist_quantile(const struct hist *h, double q);

void hist_stats(const struct hist *h, struct hist_stats *s);

/*
 * The figures of s as JSON members (no braces), the one wording every tool
 * uses: "samples": N, "overflows": N, "min_us": ..., "max_us": N,
 * "beyond_limit": ["p99.9", ...] (the quantiles past the histogram limit).
 * No samples: every figure null, never a number that was not measured.
 */
void hist_stats_json(FILE *out, const struct hist_stats *s);

/*
 * Coordinated-omission correction, as HdrHistogram's
 * recordValueWithExpectedInterval: cyclictest waits for each wake-up, so a
 * wake-up L us late at a period of interval us hides the periods it never
 * measured, which would have waited L - interval, L - 2 interval, ... us;
 * like HdrHistogram, those are added only while they are at least one
 * interval (a wake-up under two intervals late adds nothing). dst (empty)
 * becomes src plus those samples. The added samples all lie below L, so
 * the correction can lower a quantile that lies above one interval (more
 * samples, and the new ones under it), not only raise one.
 * Returns the number of samples added, or -1 (ENOMEM).
 */
int64_t hist_co_correct(const struct hist *src, long interval_us, struct hist *dst);

/*
 * Copy a histogram file from in to out without its empty buckets:
 * cyclictest -h N writes all N bucket lines, nearly all of them zero (1.4
 * MB at -h 100000). Comment ("#") lines are copied, a bucket line only if
 * one of its counts is not zero; nothing hist_parse() reads changes. The
 * same lines as the awk program '/^#/ { print; next } { for (i = 2; i <=
 * NF; i++) if ($i + 0) { print; next } }', a hundred times faster in the
 * emulated guest. Returns 0, or -1 with errno set (read, write, memory).
 */
int hist_compact(FILE *in, FILE *out);

/* Add src's buckets and counts into dst (pooling reps). 0 or -1 (ENOMEM). */
int hist_add(struct hist *dst, const struct hist *src);

#endif
