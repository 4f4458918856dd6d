// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * slb-ratio: the ratio of two measured quantities over repeated runs, with
 * its 95 % confidence interval, for benchmarks that print figures (e.g.
 * host CPU seconds of the patched emulator over the unpatched one). Reads
 * "LABEL VALUE" lines (other labels ignored, '#' comments allowed); the
 * ratio A/B is the Hodges-Lehmann estimate on the logs of the values,
 * with its distribution-free interval (bench/lib/reptest.h), the same
 * inference the study uses over reps.
 *
 *   slb-ratio [--json] A B [FILE]      (FILE defaults to standard input)
 *
 * Output: "A/B x1.012 (95 % CI 0.998-1.025; 8 vs 8 runs)".
 * Exit status: 0 done, 1 bad input (a value not > 0, too few runs for an
 * interval, unreadable file), 2 usage error.
 */
#include "../lib/reptest.h"

#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_RUNS 1000
#define ALPHA 0.05

static void usage(FILE *out)
{
	fprintf(out, "Usage: slb-ratio [--json] A B [FILE]\n"
		     "Ratio of the values labelled A over those labelled B (\"LABEL VALUE\" lines of FILE\n"
		     "or standard input), Hodges-Lehmann on logs with its 95 %% interval.\n\n"
		     "  -j, --json   JSON output\n"
		     "  -h, --help   this text\n\n"
		     "Exit status: 0 done, 1 bad input or too few runs, 2 usage error.\n");
}

/* Read the logs of A's and B's values; 0, or -1 with a message. */
static int read_values(FILE *in, const char *name, const char *a, const char *b, double *va, int *na,
		       double *vb, int *nb)
{
	char line[512], label[128];
	double v;
	int lineno = 0;

	while (fgets(line, sizeof(line), in)) {
		lineno++;
		if (line[0] == '#' || line[strspn(line, " \t\n")] == '\0')
			continue;
		if (sscanf(line, "%127s %lf", label, &v) != 2) {
			fprintf(stderr, "slb-ratio: %s:%d: '%.*s' is not 'LABEL VALUE'\n", name, lineno,
				(int)strcspn(line, "\n"), line);
			return -1;
		}
		if (strcmp(label, a) && strcmp(label, b))
			continue;
		if (!(v > 0) || !isfinite(v)) {
			fprintf(stderr, "slb-ratio: %s:%d: %s value %g is not a number > 0\n", name, lineno, label, v);
			return -1;
		}
		if (*na >= MAX_RUNS || *nb >= MAX_RUNS) {
			fprintf(stderr, "slb-ratio: %s: more than %d runs of %s\n", name, MAX_RUNS, label);
			return -1;
		}
		if (!strcmp(label, a))
			va[(*na)++] = log(v);
		else
			vb[(*nb)++] = log(v);
	}
	return 0;
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "json", no_argument, NULL, 'j' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	static double va[MAX_RUNS], vb[MAX_RUNS];
	int c, json = 0, na = 0, nb = 0, rc;
	double est, lo, hi;
	const char *name = "stdin";
	FILE *in = stdin;

	while ((c = getopt_long(argc, argv, "jh", opts, NULL)) != -1) {
		switch (c) {
		case 'j':
			json = 1;
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			usage(stderr);
			return 2;
		}
	}
	if (argc - optind < 2 || argc - optind > 3) {
		usage(stderr);
		return 2;
	}
	for (int k = 0; k < 2; k++) {
		const char *l = argv[optind + k];

		if (!*l || l[strspn(l, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-")]) {
			fprintf(stderr, "slb-ratio: label '%s' must be letters, digits, '.', '_' or '-'\n", l);
			return 2;
		}
	}
	if (!strcmp(argv[optind], argv[optind + 1])) {
		fprintf(stderr, "slb-ratio: A and B are both '%s'; give two labels\n", argv[optind]);
		return 2;
	}
	if (argc - optind == 3) {
		name = argv[optind + 2];
		if (!(in = fopen(name, "r"))) {
			fprintf(stderr, "slb-ratio: %s: %s\n", name, strerror(errno));
			return 1;
		}
	}
	rc = read_values(in, name, argv[optind], argv[optind + 1], va, &na, vb, &nb);
	if (in != stdin)
		fclose(in);
	if (rc)
		return 1;
	if (reptest_shift(va, na, vb, nb, ALPHA, &est, &lo, &hi)) {
		fprintf(stderr, "slb-ratio: %d runs of %s and %d of %s are too few for a 95 %% interval (4 and 4 at least)\n",
			na, argv[optind], nb, argv[optind + 1]);
		return 1;
	}
	if (json)
		printf("{\"a\": \"%s\", \"b\": \"%s\", \"runs_a\": %d, \"runs_b\": %d, \"ratio\": %.4f, \"ci95\": [%.4f, %.4f]}\n",
		       argv[optind], argv[optind + 1], na, nb, exp(est), exp(lo), exp(hi));
	else
		printf("%s/%s x%.3f (95 %% CI %.3f-%.3f; %d vs %d runs)\n", argv[optind], argv[optind + 1], exp(est),
		       exp(lo), exp(hi), na, nb);
	return 0;
}
