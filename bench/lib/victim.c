// SPDX-License-Identifier: GPL-2.0-or-later
/* The calibration's victim workloads (see victim.h). */
#include "victim.h"
#include "stats.h"

#include <errno.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <time.h>

#define HUGE_BYTES (2u << 20)

/* Where the results go, so that no loop is optimised away. */
static volatile uintptr_t victim_sink;

int64_t victim_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

int victim_chain_build(struct victim_chain *c, size_t bytes, uint64_t seed)
{
	size_t lines = bytes / VICTIM_LINE, align = bytes >= HUGE_BYTES ? HUGE_BYTES : VICTIM_LINE;
	uint32_t *perm;
	uint64_t st = seed ? seed : 1;

	c->map = NULL;
	if (lines < 2 || bytes % VICTIM_LINE || lines > UINT32_MAX) {
		errno = EINVAL;
		return -1;
	}
	c->map_bytes = bytes + align;
	c->map = mmap(NULL, c->map_bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (c->map == MAP_FAILED) {
		c->map = NULL;
		return -1;
	}
	c->base = (unsigned char *)(((uintptr_t)c->map + align - 1) & ~(uintptr_t)(align - 1));
	c->bytes = bytes;
	c->lines = lines;
	/* before the first touch: the pages are faulted in huge */
	c->huge = bytes >= HUGE_BYTES && !madvise(c->base, bytes, MADV_HUGEPAGE);
	perm = malloc(sizeof(*perm) * lines);
	if (!perm) {
		victim_chain_free(c);
		errno = ENOMEM;
		return -1;
	}
	for (size_t i = 0; i < lines; i++)
		perm[i] = (uint32_t)i;
	/* Sattolo: a uniformly random permutation with a single cycle */
	for (size_t i = lines - 1; i > 0; i--) {
		size_t j = (size_t)(stats_rand(&st) % i);
		uint32_t t = perm[i];

		perm[i] = perm[j];
		perm[j] = t;
	}
	for (size_t i = 0; i < lines; i++)
		*(void **)(c->base + i * VICTIM_LINE) = c->base + (size_t)perm[i] * VICTIM_LINE;
	free(perm);
	return 0;
}

void victim_chain_free(struct victim_chain *c)
{
	if (c->map)
		munmap(c->map, c->map_bytes);
	c->map = NULL;
	c->base = NULL;
}

#define STEP4(s) s s s s
#define STEP16(s) STEP4(STEP4(s))

void *victim_chase(void *p, uint64_t steps)
{
	for (uint64_t i = 0; i < steps; i += 16) {
		STEP16(p = *(void **)p;)
	}
	return p;
}

uint64_t victim_arith(uint64_t x, uint64_t steps)
{
	for (uint64_t i = 0; i < steps; i += 16) {
		/* the empty asm keeps each step a real multiply-add */
		STEP16(x = x * 6364136223846793005ull + 1442695040888963407ull; __asm__ volatile("" : "+r"(x));)
	}
	return x;
}

void victim_run(const struct victim_chain *c, double seconds, struct victim_result *r)
{
	int64_t t0 = victim_now_ns(), t, limit = (int64_t)(seconds * 1e9);
	void *p = c ? c->base : NULL;
	uint64_t x = 1, steps = 0;

	do {
		if (c)
			p = victim_chase(p, VICTIM_BATCH);
		else
			x = victim_arith(x, VICTIM_BATCH);
		steps += VICTIM_BATCH;
		t = victim_now_ns();
	} while (t - t0 < limit);
	victim_sink = (uintptr_t)p ^ (uintptr_t)x;
	r->steps = steps;
	r->ns = t - t0;
}
