/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The calibration's victim: what a task on one CPU does while another CPU
 * issues LOCKed operations, timed per step. Plain C and libc only, so that
 * the same code runs natively and in the static guest programs.
 *   arith  a dependent chain of 64-bit multiply-adds: no memory at all
 *   chase  dependent loads through a working set: every 64-byte line holds
 *          the address of the next, in one random cycle through all lines
 *          (Sattolo's shuffle, seeded), so neither order nor prefetchers
 *          help and each step is one load from whichever level holds the set
 */
#ifndef SLB_VICTIM_H
#define SLB_VICTIM_H

#include <stddef.h>
#include <stdint.h>

#define VICTIM_LINE 64
/* Steps between two reads of the clock. */
#define VICTIM_BATCH 4096

struct victim_chain {
	unsigned char *base;	/* first line; the chain starts here */
	size_t bytes, lines;
	void *map;		/* the mapping (base rounded up inside it) */
	size_t map_bytes;
	int huge;		/* madvise(MADV_HUGEPAGE) accepted */
};

/*
 * Map bytes (a multiple of VICTIM_LINE, 2 lines at least; transparent
 * huge pages asked for from 2 MiB on, so that the set, not the TLB,
 * decides) and link its lines into one random cycle. 0, or -1 (errno).
 */
int victim_chain_build(struct victim_chain *c, size_t bytes, uint64_t seed);
void victim_chain_free(struct victim_chain *c);

/* steps (a multiple of 16) dependent loads from p; the line reached. */
void *victim_chase(void *p, uint64_t steps);

/* steps (a multiple of 16) dependent multiply-adds from x; the result. */
uint64_t victim_arith(uint64_t x, uint64_t steps);

struct victim_result {
	uint64_t steps;
	int64_t ns;
};

/*
 * Run the chase through c (arith when c is NULL) in batches of
 * VICTIM_BATCH steps until at least seconds have passed (CLOCK_MONOTONIC).
 */
void victim_run(const struct victim_chain *c, double seconds, struct victim_result *r);

int64_t victim_now_ns(void);

#endif
