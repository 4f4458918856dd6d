// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Unit test of the calibration's victim (bench/lib/victim.c) and cache
 * reader (bench/lib/cacheinfo.c): the chase is one cycle through every
 * line of its working set, seeded; sysfs cache sizes parse.
 */
#include "lib/cacheinfo.h"
#include "lib/victim.h"
#include "check.h"

#include <stdlib.h>

/* Follow c's chain: 1 when it visits every line once and comes back. */
static int one_cycle(const struct victim_chain *c)
{
	unsigned char *seen = calloc(c->lines, 1), *p = c->base;
	int ok = seen != NULL;

	for (size_t i = 0; ok && i < c->lines; i++) {
		size_t line = (size_t)(p - c->base) / VICTIM_LINE;

		ok = (size_t)(p - c->base) % VICTIM_LINE == 0 && line < c->lines && !seen[line];
		if (ok)
			seen[line] = 1;
		p = *(unsigned char **)p;
	}
	free(seen);
	return ok && p == c->base;
}

int main(void)
{
	struct victim_chain a, b, big;
	struct victim_result r;
	size_t same = 0;

	CHECK(victim_chain_build(&a, 64 << 10, 7) == 0 && a.lines == 1024, "a 64 KiB chain has 1024 lines");
	CHECK(one_cycle(&a), "the chase visits every line of 64 KiB once, then returns to the start");
	CHECK(victim_chain_build(&b, 64 << 10, 7) == 0, "the same size and seed again");
	for (size_t i = 0; i < a.lines; i++)
		same += *(unsigned char **)(a.base + i * VICTIM_LINE) - a.base ==
			*(unsigned char **)(b.base + i * VICTIM_LINE) - b.base;
	CHECK(same == a.lines, "the same seed links the lines alike");
	victim_chain_free(&b);
	CHECK(victim_chain_build(&b, 64 << 10, 8) == 0, "another seed");
	same = 0;
	for (size_t i = 0; i < a.lines; i++)
		same += *(unsigned char **)(a.base + i * VICTIM_LINE) - a.base ==
			*(unsigned char **)(b.base + i * VICTIM_LINE) - b.base;
	CHECK(same < a.lines / 10, "another seed links them otherwise (%zu of %zu alike)", same, a.lines);
	CHECK(victim_chain_build(&big, 4 << 20, 1) == 0 && one_cycle(&big) && (uintptr_t)big.base % (2 << 20) == 0,
	      "a 4 MiB chain is one cycle and starts on a 2 MiB boundary (huge pages: %d)", big.huge);
	CHECK(victim_chase(a.base, 1024) == a.base && victim_chase(a.base, 16) != a.base,
	      "victim_chase: 1024 steps through 1024 lines come back, 16 do not");
	CHECK(victim_arith(1, 32) == victim_arith(victim_arith(1, 16), 16), "victim_arith is a chain of steps");
	victim_run(&a, 0.01, &r);
	CHECK(r.steps >= VICTIM_BATCH && r.steps % VICTIM_BATCH == 0 && r.ns >= 10000000,
	      "victim_run runs whole batches for at least the time asked");
	victim_run(NULL, 0.001, &r);
	CHECK(r.steps >= VICTIM_BATCH && r.ns >= 1000000, "... the arithmetic loop too");
	struct victim_chain bad;
	CHECK(victim_chain_build(&bad, 100, 1) == -1 && victim_chain_build(&bad, 64, 1) == -1,
	      "a size that is not whole lines, or a single line, is refused");
	victim_chain_free(&a);
	victim_chain_free(&b);
	victim_chain_free(&big);
	CHECK(cacheinfo_parse_size("48K") == 48 << 10 && cacheinfo_parse_size("491520K\n") == 491520ull << 10 &&
	      cacheinfo_parse_size("2M") == 2 << 20 && cacheinfo_parse_size("4096") == 4096,
	      "sysfs cache sizes: 48K, 491520K, 2M, 4096");
	CHECK(cacheinfo_parse_size("") == 0 && cacheinfo_parse_size("12Q") == 0 && cacheinfo_parse_size("K") == 0,
	      "malformed sizes are 0");
	CHECK_EXIT();
}
