// SPDX-License-Identifier: GPL-2.0-or-later
/* Unit tests of cyclictest histogram parsing and percentiles (bench/lib/hist.c). */
#include "lib/hist.h"
#include "check.h"

#include <string.h>

static int parse(const char *text, struct hist *h)
{
	char err[128] = "";
	FILE *f = fmemopen((void *)text, strlen(text), "r");
	int rc = hist_parse(f, h, err, sizeof(err));

	fclose(f);
	return rc;
}

int main(void)
{
	struct hist h, pool = { .min_us = -1, .max_us = -1 };
	struct hist_stats s;
	char text[65536];
	size_t n = 0;

	/* 1000 samples: 10..19 us, 100 each; one thread. */
	n += (size_t)sprintf(text + n, "# Histogram\n");
	for (int b = 10; b < 20; b++)
		n += (size_t)sprintf(text + n, "%06d %06d\n", b, 100);
	sprintf(text + n, "# Total: 000001000\n# Min Latencies: 00010\n# Avg Latencies: 00014\n"
		"# Max Latencies: 00019\n# Histogram Overflows: 00000\n");
	CHECK(parse(text, &h) == 0, "uniform histogram parses");
	hist_stats(&h, &s);
	CHECK(s.samples == 1000 && h.total == 1000, "1000 samples counted, total line read");
	CHECK(s.min_us == 10 && s.max_us == 19, "min 10 and max 19 (got %ld, %ld)", s.min_us, s.max_us);
	CHECK(s.p50 == 14, "p50 is 14 us (got %ld)", s.p50);
	CHECK(s.p90 == 18, "p90 is 18 us (got %ld)", s.p90);
	CHECK(s.p99 == 19 && s.p999 == 19, "p99 and p99.9 are 19 us");
	CHECK(s.avg_us > 14.49 && s.avg_us < 14.51, "avg from buckets is 14.5 (got %.2f)", s.avg_us);

	CHECK(hist_add(&pool, &h) == 0 && hist_add(&pool, &h) == 0 && pool.samples == 2000,
	      "pooling two reps doubles the samples");
	hist_stats(&pool, &s);
	CHECK(s.p50 == 14 && s.max_us == 19, "pooled percentiles equal the reps'");
	hist_free(&pool);
	hist_free(&h);

	/* Two threads, overflow beyond the last bucket: max from the summary. */
	CHECK(parse("000001 000010 000000\n000002 000000 000089\n# Total: 000000010 000000089\n"
		    "# Max Latencies: 00003 05000\n# Histogram Overflows: 00000 00001\n", &h) == 0,
	      "two-thread histogram with an overflow parses");
	hist_stats(&h, &s);
	CHECK(h.threads == 2 && s.samples == 99 && s.overflows == 1, "threads pooled, overflow counted");
	CHECK(s.max_us == 5000, "max comes from the summary line when it overflowed (got %ld)", s.max_us);
	CHECK(s.p999 == 5000 && s.p99 == 2, "p99.9 falls in the overflow, p99 does not (got %ld, %ld)", s.p999, s.p99);
	hist_free(&h);

	/* One column of the same: its counts and its own summary values. */
	{
		static const char two[] = "000001 000010 000000\n000002 000000 000089\n# Total: 000000010 000000089\n"
					  "# Max Latencies: 00003 05000\n# Histogram Overflows: 00000 00001\n";
		char err[128] = "";
		FILE *f = fmemopen((void *)two, strlen(two), "r");

		CHECK(hist_parse_column(f, &h, 1, err, sizeof(err)) == 0, "column 2 parses (%s)", err);
		fclose(f);
		hist_stats(&h, &s);
		CHECK(s.samples == 89 && s.overflows == 1 && s.max_us == 5000 && h.total == 89,
		      "column 2: its 89 samples, its overflow and max (got %llu, %llu, %ld)",
		      (unsigned long long)s.samples, (unsigned long long)s.overflows, s.max_us);
		hist_free(&h);
		f = fmemopen((void *)two, strlen(two), "r");
		CHECK(hist_parse_column(f, &h, 0, err, sizeof(err)) == 0, "column 1 parses");
		fclose(f);
		hist_stats(&h, &s);
		CHECK(s.samples == 10 && s.overflows == 0 && s.max_us == 3, "column 1: 10 samples, max 3 (got %ld)", s.max_us);
		hist_free(&h);
		f = fmemopen((void *)two, strlen(two), "r");
		CHECK(hist_parse_column(f, &h, 2, err, sizeof(err)) == -1 && strstr(err, "no column 3"),
		      "a column the file does not have is an error (%s)", err);
		fclose(f);
	}

	CHECK(parse("000001 abc\n", &h) == -1, "a non-numeric count is rejected");
	CHECK(parse("# only comments\n", &h) == -1, "a file without histogram lines is rejected");
	CHECK(parse("000001 -5\n", &h) == -1, "a negative count is rejected");
	CHECK(parse("000001 99999999999999999999\n", &h) == -1, "a count beyond 64 bits is rejected");
	CHECK(parse("000001 18446744073709551615\n000002 000001\n", &h) == -1,
	      "counts whose sum overflows are rejected");
	CHECK(parse("000001 000010\n# Total: 000000011\n", &h) == -1,
	      "a '# Total:' that disagrees with the buckets is rejected");
	CHECK(parse("# Total: 000000000\n# Max Latencies: 250000\n# Histogram Overflows: 03000\n", &h) == 0,
	      "a rep whose every sample overflowed still parses (it is a rep)");
	hist_stats(&h, &s);
	CHECK(s.samples == 0 && s.overflows == 3000 && s.p99 == 250000 && s.max_us == 250000,
	      "... with its quantiles at the overflow bound (got p99 %ld)", s.p99);
	hist_free(&h);

	/* Coordinated omission, HdrHistogram's rule: reconstructed samples >= one interval. */
	struct hist co;
	struct hist_stats cs;

	CHECK(parse("000010 000990\n003500 000010\n# Total: 000001000\n", &h) == 0, "a rep with 10 wake-ups 3500 us late parses");
	CHECK(hist_co_correct(&h, 1000, &co) == 20 && co.count[2500] == 10 && co.count[1500] == 10 && co.count[500] == 0,
	      "3500 us late at 1000 us: 2500 and 1500 us reconstructed, not 500 (under one interval)");
	hist_free(&co);
	CHECK(hist_co_correct(&h, 2000, &co) == 0, "under two intervals late: nothing reconstructed");
	hist_free(&co);
	hist_free(&h);
	CHECK(parse("000010 000989\n012000 000011\n# Total: 000001000\n", &h) == 0, "a rep with 11 wake-ups 12 ms late parses");
	hist_stats(&h, &s);
	CHECK(hist_co_correct(&h, 1000, &co) == 121, "11 x 11 periods reconstructed (11000 down to 1000 us)");
	hist_stats(&co, &cs);
	CHECK(s.p99 == 12000 && cs.p99 == 11000, "the correction can lower a quantile: p99 12000 -> %ld us", cs.p99);
	hist_free(&co);
	hist_free(&h);
	CHECK_EXIT();
}
