// SPDX-License-Identifier: GPL-2.0-or-later
/* Command-line number parsing shared by the C tools (see num.h). */
#include "num.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <strings.h>

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

int num_parse_size(const char *prog, const char *name, const char *text, uint64_t lo, uint64_t hi,
		   uint64_t *v)
{
	static const char *const units[] = { "", "k", "kib", "kb", "m", "mib", "mb", "g", "gib", "gb" };
	static const int shift[] = { 0, 10, 10, 10, 20, 20, 20, 30, 30, 30 };
	char *end, los[32], his[32];
	unsigned long long n;

	errno = 0;
	n = strtoull(text, &end, 10);
	if (!errno && end != text && text[0] >= '0' && text[0] <= '9') {
		for (unsigned i = 0; i < sizeof(shift) / sizeof(shift[0]); i++) {
			if (strcasecmp(end, units[i]) || n > (UINT64_MAX >> shift[i]))
				continue;
			*v = (uint64_t)n << shift[i];
			if (*v >= lo && *v <= hi)
				return 0;
		}
	}
	fprintf(stderr, "%s: %s '%s' is not a size from %s to %s (a whole number of bytes, or with K, M or G)\n",
		prog, name, text, num_format_size(lo, los, sizeof(los)), num_format_size(hi, his, sizeof(his)));
	return -1;
}

const char *num_format_size(uint64_t bytes, char *buf, int len)
{
	static const char *const prefix[] = { "B", "KiB", "MiB", "GiB", "TiB" };
	double x = (double)bytes;
	int k = 0;

	while (x >= 1024 && k < 4) {
		x /= 1024;
		k++;
	}
	if (k == 0 || x == floor(x))
		snprintf(buf, (size_t)len, "%.0f %s", x, prefix[k]);
	else
		snprintf(buf, (size_t)len, "%.3g %s", x, prefix[k]);
	return buf;
}
