/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Reader of `rtla timerlat hist` output (rtla 6.1 and later, microseconds,
 * with its index column): a header "Index IRQ-001 Thr-001 ...", one line
 * per bucket "<index> <count>...", then "over:", "count:", "min:", "avg:"
 * and "max:" lines with one value per column. timerlat_to_hist() writes
 * one context's columns (IRQ or thread latency, a column per CPU) as a
 * cyclictest histogram (hist.h), so that the same statistics read both.
 * The bucket size must be 1 us (rtla -b 1), cyclictest's.
 */
#ifndef SLB_TIMERLAT_H
#define SLB_TIMERLAT_H

#include <stddef.h>
#include <stdio.h>

enum timerlat_context { TIMERLAT_IRQ, TIMERLAT_THREAD };

/*
 * Convert rtla's histogram on in into a cyclictest histogram on out: the
 * context's columns, non-empty buckets only, then "# Total:" (the
 * buckets' sum), "# Min/Avg/Max Latencies:" and "# Histogram Overflows:".
 * Nothing is written unless the whole input parses and its counts agree
 * (count = buckets + over, per column). Returns 0, or -1 with a message
 * in err.
 */
int timerlat_to_hist(FILE *in, FILE *out, enum timerlat_context ctx, char *err, size_t errlen);

#endif
