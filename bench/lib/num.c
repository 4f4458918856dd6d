// SPDX-License-Identifier: GPL-2.0-or-later
/* Command-line number parsing shared by the C tools (see num.h). */
#include "num.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

int num_parse(const char *prog, const char *name, const char *text, double lo, double hi,
	      int whole, double *v)
{
	char *end;

	errno = 0;
	*v = strtod(text, &end);
	if (errno || end == text || *end || !isfinite(*v) || *v < lo || *v > hi ||
	    (whole && *v != floor(*v))) {
		fprintf(stderr, "%s: %s '%s' is not a %snumber from %.15g to %.15g\n", prog, name, text,
			whole ? "whole " : "", lo, hi);
		return -1;
	}
	return 0;
}

int num_parse_u64(const char *prog, const char *name, const char *text, uint64_t lo, uint64_t hi,
		  uint64_t *v)
{
	char *end;

	errno = 0;
	*v = strtoull(text, &end, 0);
	if (errno || end == text || *end || text[0] == '-' || *v < lo || *v > hi) {
		fprintf(stderr, "%s: %s '%s' is not a whole number from %" PRIu64 " to %" PRIu64
			" (decimal or 0x hex)\n", prog, name, text, lo, hi);
		return -1;
	}
	return 0;
}
