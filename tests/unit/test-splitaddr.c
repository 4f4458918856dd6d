// SPDX-License-Identifier: GPL-2.0-or-later
/* Unit test: the load generator's split operand crosses a line, the others do not. */
#include "lib/splitaddr.h"
#include "check.h"

static unsigned char buf[4 * SLB_LINE] __attribute__((aligned(SLB_LINE)));

int main(void)
{
	static const int sizes[] = { 2, 4, 8 };

	for (unsigned i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
		size_t n = (size_t)sizes[i];
		uintptr_t split = (uintptr_t)slb_operand(buf + SLB_LINE, SLB_MODE_SPLIT, n);
		uintptr_t aligned = (uintptr_t)slb_operand(buf + SLB_LINE, SLB_MODE_ALIGNED, n);
		uintptr_t in = (uintptr_t)slb_operand(buf + SLB_LINE, SLB_MODE_INLINE, n);

		CHECK(slb_crosses_line(split, n), "size %zu: split operand crosses a 64-byte line", n);
		CHECK(split / SLB_LINE != (split + n - 1) / SLB_LINE, "size %zu: split's first and last byte lie in different lines", n);
		CHECK(!slb_crosses_line(aligned, n) && aligned % n == 0, "size %zu: aligned operand is naturally aligned, one line", n);
		CHECK(!slb_crosses_line(in, n) && in % n != 0, "size %zu: inline operand is misaligned inside one line", n);
		CHECK(split >= (uintptr_t)buf && split + n <= (uintptr_t)buf + sizeof(buf), "size %zu: split operand stays in its buffer", n);
	}
	CHECK(!slb_crosses_line(64, 64) && slb_crosses_line(65, 64) && slb_crosses_line(63, 2) && !slb_crosses_line(62, 2),
	      "line-crossing predicate at the boundaries");
	CHECK_EXIT();
}
