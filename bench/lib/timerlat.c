// SPDX-License-Identifier: GPL-2.0-or-later
/* rtla timerlat hist output into a cyclictest histogram; see timerlat.h. */
#include "timerlat.h"

#include <ctype.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define TL_MAX_COLS 1024

struct tl_col {
	int cpu, want;
	unsigned long long sum, over, count;
	char min[24], avg[24], max[24];
};

static int fail(char *err, size_t errlen, unsigned long lineno, const char *what)
{
	if (lineno)
		snprintf(err, errlen, "line %lu: %s", lineno, what);
	else
		snprintf(err, errlen, "%s", what);
	return -1;
}

/* The next whitespace-separated word of *p into w (at most len - 1 characters); 0 at the end. */
static int word(char **p, char *w, size_t len)
{
	size_t n = 0;

	while (isspace((unsigned char)**p))
		(*p)++;
	if (!**p)
		return 0;
	while (**p && !isspace((unsigned char)**p)) {
		if (n + 1 < len)
			w[n++] = **p;
		(*p)++;
	}
	w[n] = '\0';
	return 1;
}

static int is_count(const char *w)
{
	if (!*w)
		return 0;
	for (; *w; w++)
		if (!isdigit((unsigned char)*w))
			return 0;
	return 1;
}

int timerlat_to_hist(FILE *in, FILE *out, enum timerlat_context ctx, char *err, size_t errlen)
{
	static struct tl_col col[TL_MAX_COLS];
	const char *prefix = ctx == TIMERLAT_IRQ ? "IRQ-" : "Thr-";
	char line[65536], w[64], msg[160], *body = NULL;
	size_t bodylen = 0;
	unsigned long lineno = 0;
	int ncol = -1, nwant = 0, unit_us = 0, have_count = 0, rc = -1;
	long last_index = -1;
	FILE *b = open_memstream(&body, &bodylen);

	if (!b)
		return fail(err, errlen, 0, "out of memory");
	while (fgets(line, sizeof(line), in)) {
		char *p = line;

		lineno++;
		if (!strchr(line, '\n') && !feof(in)) {
			fail(err, errlen, lineno, "line too long");
			goto out;
		}
		if (line[0] == '#') {
			if (!strncmp(line, "# Time unit is ", 15))
				unit_us = strstr(line, "(us)") != NULL;
			continue;
		}
		if (!word(&p, w, sizeof(w)))
			continue;
		if (!strcmp(w, "Index")) {
			ncol = 0;
			while (word(&p, w, sizeof(w))) {
				char *end;

				if (ncol == TL_MAX_COLS) {
					fail(err, errlen, lineno, "more columns than this reader takes");
					goto out;
				}
				memset(&col[ncol], 0, sizeof(col[ncol]));
				col[ncol].want = !strncmp(w, prefix, 4);
				col[ncol].cpu = (int)strtol(w + 4, &end, 10);
				if (strlen(w) < 5 || *end || w[3] != '-') {
					snprintf(msg, sizeof(msg), "column '%.20s' is not IRQ-N, Thr-N or Usr-N", w);
					fail(err, errlen, lineno, msg);
					goto out;
				}
				nwant += col[ncol].want;
				ncol++;
			}
			continue;
		}
		if (ncol < 0) {
			fail(err, errlen, lineno, "data before the 'Index' header (rtla --no-index is not read)");
			goto out;
		}
		if (is_count(w)) {
			long index = strtol(w, NULL, 10);
			int any = 0;

			if (index <= last_index || index > 10000000) {
				fail(err, errlen, lineno, "bucket index out of order or out of range");
				goto out;
			}
			last_index = index;
			for (int i = 0; i < ncol; i++) {
				unsigned long long c;

				if (!word(&p, w, sizeof(w)) || !is_count(w)) {
					fail(err, errlen, lineno, "a bucket line with fewer counts than columns");
					goto out;
				}
				c = strtoull(w, NULL, 10);
				if (col[i].want) {
					col[i].sum += c;
					any |= c != 0;
				}
			}
			if (word(&p, w, sizeof(w))) {
				fail(err, errlen, lineno, "a bucket line with more counts than columns");
				goto out;
			}
			if (!any)
				continue;
			fprintf(b, "%06ld", index);
			p = line;
			word(&p, w, sizeof(w));
			for (int i = 0; i < ncol; i++) {
				word(&p, w, sizeof(w));
				if (col[i].want)
					fprintf(b, "\t%06llu", strtoull(w, NULL, 10));
			}
			fputc('\n', b);
			continue;
		}
		/* the summary: over, count, min, avg, max (rtla prints "-" for none) */
		if (strcmp(w, "over:") && strcmp(w, "count:") && strcmp(w, "min:") && strcmp(w, "avg:") &&
		    strcmp(w, "max:")) {
			snprintf(msg, sizeof(msg), "unexpected line '%.40s'", line);
			fail(err, errlen, lineno, msg);
			goto out;
		}
		{
			char key[8];

			snprintf(key, sizeof(key), "%.7s", w);
			for (int i = 0; i < ncol; i++) {
				if (!word(&p, w, sizeof(w)) || (!is_count(w) && strcmp(w, "-"))) {
					snprintf(msg, sizeof(msg), "'%s' has fewer values than columns", key);
					fail(err, errlen, lineno, msg);
					goto out;
				}
				if (!strcmp(key, "over:"))
					col[i].over = strtoull(w, NULL, 10);
				else if (!strcmp(key, "count:"))
					col[i].count = strtoull(w, NULL, 10), have_count = 1;
				else
					snprintf(!strcmp(key, "min:") ? col[i].min : !strcmp(key, "avg:") ? col[i].avg : col[i].max,
						 sizeof(col[i].min), "%.23s", w);
			}
		}
	}
	if (ferror(in)) {
		fail(err, errlen, 0, "read error");
		goto out;
	}
	if (!unit_us) {
		fail(err, errlen, 0, "no '# Time unit is microseconds (us)' line (rtla -n, nanoseconds, is not read)");
		goto out;
	}
	if (ncol < 0 || !have_count) {
		fail(err, errlen, 0, "no 'Index' header or no 'count:' line: not a whole rtla timerlat hist output");
		goto out;
	}
	if (!nwant) {
		snprintf(msg, sizeof(msg), "no %s columns (rtla ran with --no-%s?)", ctx == TIMERLAT_IRQ ? "IRQ" : "thread",
			 ctx == TIMERLAT_IRQ ? "irq" : "thread");
		fail(err, errlen, 0, msg);
		goto out;
	}
	for (int i = 0; i < ncol; i++)
		if (col[i].want && col[i].count != col[i].sum + col[i].over) {
			snprintf(msg, sizeof(msg), "CPU %d: count %llu, but its buckets hold %llu and over %llu", col[i].cpu,
				 col[i].count, col[i].sum, col[i].over);
			fail(err, errlen, 0, msg);
			goto out;
		}
	if (fclose(b)) {
		b = NULL;
		fail(err, errlen, 0, "out of memory");
		goto out;
	}
	b = NULL;
	fprintf(out, "# rtla timerlat hist, %s latency, CPUs", ctx == TIMERLAT_IRQ ? "IRQ" : "thread");
	for (int i = 0; i < ncol; i++)
		if (col[i].want)
			fprintf(out, " %d", col[i].cpu);
	fprintf(out, "\n");
	fwrite(body, 1, bodylen, out);
#define SUMMARY(label, ...)                                    \
	do {                                                   \
		fprintf(out, "# " label ":");                  \
		for (int i = 0; i < ncol; i++)                 \
			if (col[i].want)                       \
				fprintf(out, " " __VA_ARGS__); \
		fprintf(out, "\n");                            \
	} while (0)
	SUMMARY("Total", "%09llu", col[i].sum);
	SUMMARY("Min Latencies", "%s", col[i].min);
	SUMMARY("Avg Latencies", "%s", col[i].avg);
	SUMMARY("Max Latencies", "%s", col[i].max);
	SUMMARY("Histogram Overflows", "%05llu", col[i].over);
#undef SUMMARY
	rc = 0;
out:
	if (b)
		fclose(b);
	free(body);
	return rc;
}
