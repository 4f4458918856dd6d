// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * slb-histcompact: drop the empty buckets of a cyclictest histogram
 * (--histfile). cyclictest -h 100000 writes 100000 bucket lines, nearly all
 * zero; every rep keeps only the others and the summary lines
 * (hist_compact() in lib/hist.c, lossless for what the host reads). In the
 * emulated guest, where every instruction costs host time (after the
 * measurement, but on the study's clock), C does this far faster than awk.
 *
 * Usage: slb-histcompact [FILE]   (standard input without FILE; the result
 * goes to standard output).
 * Exit status: 0 written, 1 read or write error, 2 usage.
 */
#include "../lib/hist.h"

#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <string.h>

static void usage(FILE *out)
{
	fprintf(out,
		"Usage: slb-histcompact [FILE]\n"
		"Copy a cyclictest histogram (FILE, or standard input) to standard output\n"
		"without its empty buckets: comment lines and buckets with a count stay.\n\n"
		"  -h, --help  this text\n\n"
		"Exit status: 0 written, 1 read or write error, 2 usage error.\n");
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	FILE *in = stdin;
	int c, rc;

	while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (c) {
		case 'h':
			usage(stdout);
			return 0;
		default:
			usage(stderr);
			return 2;
		}
	}
	if (argc - optind > 1) {
		fprintf(stderr, "slb-histcompact: one FILE at most (got %d arguments)\n", argc - optind);
		return 2;
	}
	if (optind < argc && !(in = fopen(argv[optind], "r"))) {
		fprintf(stderr, "slb-histcompact: %s: %s\n", argv[optind], strerror(errno));
		return 1;
	}
	rc = hist_compact(in, stdout);
	if (rc)
		fprintf(stderr, "slb-histcompact: %s: %s\n", optind < argc ? argv[optind] : "stdin", strerror(errno));
	if (in != stdin)
		fclose(in);
	if (fflush(stdout) || ferror(stdout)) {
		if (!rc)
			fprintf(stderr, "slb-histcompact: writing: %s\n", strerror(errno));
		rc = -1;
	}
	return rc ? 1 : 0;
}
