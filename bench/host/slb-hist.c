// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * slb-hist: summary figures of cyclictest latency histograms (--histfile
 * output): samples, min, avg, p50, p90, p99, p99.9, max, overflows, per
 * file and, with several files, pooled over all of them.
 *
 * Exit status: 0 all parsed, 1 a file is unreadable or malformed, 2 usage.
 */
#include "../lib/hist.h"

#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <string.h>

static void usage(FILE *out)
{
	fprintf(out,
		"Usage: slb-hist [--json] HISTFILE...\n"
		"Summarise cyclictest histograms (1 us buckets); pool them when several.\n\n"
		"  -j, --json   JSON output (default: a table)\n"
		"  -h, --help   this text\n\n"
		"Exit status: 0 parsed, 1 unreadable or malformed input, 2 usage error.\n");
}

static void print_row(const char *name, const struct hist_stats *s, int json, int last)
{
	if (json) {
		printf("    {\"name\": \"%s\", ", name);
		hist_stats_json(stdout, s);
		printf("}%s\n", last ? "" : ",");
	} else {
		printf("%-28s %10llu %6ld %9.1f %6ld %6ld %6ld %7ld %7ld %6llu\n", name,
		       (unsigned long long)s->samples, s->min_us, s->avg_us, s->p50, s->p90,
		       s->p99, s->p999, s->max_us, (unsigned long long)s->overflows);
	}
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "json", no_argument, NULL, 'j' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct hist pooled = { .min_us = -1, .max_us = -1, .avg_us = -1 };
	struct hist_stats st;
	int c, json = 0, n;

	while ((c = getopt_long(argc, argv, "jh", opts, NULL)) != -1) {
		switch (c) {
		case 'j': json = 1; break;
		case 'h': usage(stdout); return 0;
		default: usage(stderr); return 2;
		}
	}
	n = argc - optind;
	if (n < 1) {
		fprintf(stderr, "slb-hist: no HISTFILE given\n");
		usage(stderr);
		return 2;
	}
	if (json)
		printf("{\n  \"unit\": \"us\",\n  \"histograms\": [\n");
	else
		printf("%-28s %10s %6s %9s %6s %6s %6s %7s %7s %6s\n", "histogram", "samples", "min",
		       "avg", "p50", "p90", "p99", "p99.9", "max", "ovfl");
	for (int i = optind; i < argc; i++) {
		char err[256];
		struct hist h;
		FILE *f = fopen(argv[i], "r");

		if (!f) {
			fprintf(stderr, "slb-hist: cannot read %s: %s\n", argv[i], strerror(errno));
			return 1;
		}
		if (hist_parse(f, &h, err, sizeof(err))) {
			fclose(f);
			fprintf(stderr, "slb-hist: %s: %s\n", argv[i], err);
			return 1;
		}
		fclose(f);
		hist_stats(&h, &st);
		print_row(argv[i], &st, json, n == 1 && i == argc - 1);
		if (n > 1 && hist_add(&pooled, &h)) {
			fprintf(stderr, "slb-hist: out of memory\n");
			return 1;
		}
		hist_free(&h);
	}
	if (n > 1) {
		hist_stats(&pooled, &st);
		print_row("pooled", &st, json, 1);
		hist_free(&pooled);
	}
	if (json)
		printf("  ]\n}\n");
	return 0;
}
