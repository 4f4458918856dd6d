/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Where the load generator puts its operand: placements relative to a
 * 64-byte cache line, shared by slb-load and its unit test.
 */
#ifndef SLB_SPLITADDR_H
#define SLB_SPLITADDR_H

#include <stddef.h>
#include <stdint.h>

#define SLB_LINE 64

enum slb_mode { SLB_MODE_SPLIT, SLB_MODE_ALIGNED, SLB_MODE_INLINE, SLB_MODE_NONE };

/*
 * Operand of size bytes in a buffer of at least 2 * SLB_LINE bytes that
 * starts on a line boundary: split straddles the boundary between the two
 * lines, aligned is naturally aligned, inline is misaligned by one byte
 * but inside the first line.
 */
static inline unsigned char *slb_operand(unsigned char *line_buf, enum slb_mode mode, size_t size)
{
	switch (mode) {
	case SLB_MODE_SPLIT: return line_buf + SLB_LINE - size / 2;
	case SLB_MODE_INLINE: return line_buf + 1;
	default: return line_buf;
	}
}

/* 1 if [addr, addr + size) crosses a cache line boundary. */
static inline int slb_crosses_line(uintptr_t addr, size_t size)
{
	return (addr % SLB_LINE) + size > SLB_LINE;
}

#endif
