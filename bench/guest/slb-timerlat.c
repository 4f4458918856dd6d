// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * slb-timerlat: one context of an `rtla timerlat hist` output (IRQ or
 * thread latency) as a cyclictest histogram (lib/timerlat.c), which
 * slb-hist, slb-summary and slb-stats read as they read cyclictest's. Runs
 * in the guest after rtla (and natively), like slb-histcompact.
 *
 * Usage: slb-timerlat --context irq|thread [FILE]   (standard input
 * without FILE; the histogram goes to standard output).
 * Exit status: 0 written, 1 unreadable or malformed input, 2 usage.
 */
#include "../lib/timerlat.h"

#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <string.h>

static void usage(FILE *out)
{
	fprintf(out,
		"Usage: slb-timerlat --context irq|thread [FILE]\n"
		"Write the IRQ or thread latencies of an 'rtla timerlat hist' output (FILE,\n"
		"or standard input; microseconds, 1 us buckets) as a cyclictest histogram,\n"
		"a column per CPU, to standard output.\n\n"
		"  -C, --context C  irq (the timer's interrupt) or thread (the timerlat\n"
		"                   thread's wake-up, what cyclictest measures)\n"
		"  -h, --help       this text\n\n"
		"Exit status: 0 written, 1 unreadable or malformed input, 2 usage error.\n");
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "context", required_argument, NULL, 'C' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *name = "stdin";
	char err[256];
	FILE *in = stdin;
	int c, ctx = -1, rc;

	while ((c = getopt_long(argc, argv, "C:h", opts, NULL)) != -1) {
		switch (c) {
		case 'C':
			if (!strcmp(optarg, "irq"))
				ctx = TIMERLAT_IRQ;
			else if (!strcmp(optarg, "thread"))
				ctx = TIMERLAT_THREAD;
			else {
				fprintf(stderr, "slb-timerlat: context '%s' is not allowed (allowed: irq thread)\n", optarg);
				return 2;
			}
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			usage(stderr);
			return 2;
		}
	}
	if (ctx < 0) {
		fprintf(stderr, "slb-timerlat: --context is required (allowed: irq thread)\n");
		return 2;
	}
	if (argc - optind > 1) {
		fprintf(stderr, "slb-timerlat: one FILE at most (got %d arguments)\n", argc - optind);
		return 2;
	}
	if (optind < argc) {
		name = argv[optind];
		if (!(in = fopen(name, "r"))) {
			fprintf(stderr, "slb-timerlat: %s: %s\n", name, strerror(errno));
			return 1;
		}
	}
	rc = timerlat_to_hist(in, stdout, (enum timerlat_context)ctx, err, sizeof(err));
	if (rc)
		fprintf(stderr, "slb-timerlat: %s: %s\n", name, err);
	if (in != stdin)
		fclose(in);
	if (fflush(stdout) || ferror(stdout)) {
		if (!rc)
			fprintf(stderr, "slb-timerlat: writing: %s\n", strerror(errno));
		rc = -1;
	}
	return rc ? 1 : 0;
}
