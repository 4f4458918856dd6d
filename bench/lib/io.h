/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Whole-stream input for the tools that need a file in memory; JSON strings. */
#ifndef SLB_IO_H
#define SLB_IO_H

#include <stddef.h>
#include <stdio.h>

/* Read f to its end into a malloc'ed buffer (never NULL on success, even
 * when empty); *len is its size. NULL when out of memory or on a read error. */
unsigned char *read_stream(FILE *f, size_t *len);

/* s as a JSON string, quotes included (control characters escaped). */
void json_string(FILE *out, const char *s);

#endif
