// SPDX-License-Identifier: GPL-2.0-or-later
/* Whole-stream input and JSON strings; see io.h. */
#include "io.h"

#include <stdlib.h>

unsigned char *read_stream(FILE *f, size_t *len)
{
	unsigned char *buf = NULL, *nb;
	size_t cap = 0, n = 0, r;

	do {
		if (n == cap) {
			cap = cap ? cap * 2 : 65536;
			nb = realloc(buf, cap);
			if (!nb) {
				free(buf);
				return NULL;
			}
			buf = nb;
		}
		r = fread(buf + n, 1, cap - n, f);
		n += r;
	} while (r > 0);
	if (ferror(f)) {
		free(buf);
		return NULL;
	}
	*len = n;
	return buf;
}

void json_string(FILE *out, const char *s)
{
	fputc('"', out);
	for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
		if (*p == '"' || *p == '\\')
			fprintf(out, "\\%c", *p);
		else if (*p < 0x20)
			fprintf(out, "\\u%04x", *p);
		else
			fputc(*p, out);
	}
	fputc('"', out);
}
