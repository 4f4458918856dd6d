/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Command-line numbers, one way and one error wording for every tool:
 * "PROG: NAME 'TEXT' is not a number from LO to HI" (or "a whole number").
 */
#ifndef SLB_NUM_H
#define SLB_NUM_H

#include <stdint.h>

/* TEXT as a finite number from lo to hi; whole numbers only if whole. */
int num_parse(const char *prog, const char *name, const char *text, double lo, double hi,
	      int whole, double *v);

/* TEXT as an unsigned whole number (decimal or 0x hex) from lo to hi. */
int num_parse_u64(const char *prog, const char *name, const char *text, uint64_t lo, uint64_t hi,
		  uint64_t *v);

/*
 * TEXT as a size in bytes from lo to hi: a whole number with an optional
 * binary suffix K, M or G (KiB, MiB, GiB; "K", "KiB" and "KB" alike, any
 * case). The error names TEXT: "PROG: NAME 'TEXT' is not a size from 1 KiB
 * to 4 GiB (a whole number of bytes, or with K, M or G)".
 */
int num_parse_size(const char *prog, const char *name, const char *text, uint64_t lo, uint64_t hi,
		   uint64_t *v);

/* bytes as "48 KiB", "2 MiB", "1.5 GiB" or "100 B" into buf. */
const char *num_format_size(uint64_t bytes, char *buf, int len);

#endif
