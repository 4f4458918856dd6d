/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The LOCKed read-modify-write forms the project issues, one definition
 * for slb-load (the study's load generator) and slb-calibrate (what each
 * form costs on the machine it runs on). Header only: both are static
 * guest programs, and each inlines the one it loops on.
 *
 * ADD, XADD, XCHG (locked without a prefix), CMPXCHG, INC and BTS come in
 * 4 and 8 bytes; CMPXCHG8B is 8 bytes; CMPXCHG16B is 16 bytes and needs a
 * 16-byte aligned operand (#GP otherwise), so it can never cross a line:
 * it has no split form (slb_op_can_split).
 */
#ifndef SLB_LOCKOP_H
#define SLB_LOCKOP_H

#include <stdint.h>
#include <string.h>

enum slb_op {
	SLB_OP_ADD, SLB_OP_XADD, SLB_OP_XCHG, SLB_OP_CMPXCHG, SLB_OP_INC, SLB_OP_BTS,
	SLB_OP_CMPXCHG8B, SLB_OP_CMPXCHG16B, SLB_OP_COUNT
};

/* The forms before this one take a size of 4 or 8 bytes (slb-load --op). */
#define SLB_OP_SIZED SLB_OP_CMPXCHG8B

static inline const char *slb_op_name(enum slb_op op)
{
	static const char *const names[SLB_OP_COUNT] = { "add", "xadd", "xchg", "cmpxchg", "inc", "bts",
							 "cmpxchg8b", "cmpxchg16b" };

	return op < SLB_OP_COUNT ? names[op] : "?";
}

/* The op called name among the first n (SLB_OP_SIZED or SLB_OP_COUNT), or -1. */
static inline int slb_op_lookup(const char *name, int n)
{
	for (int i = 0; i < n; i++)
		if (!strcmp(name, slb_op_name((enum slb_op)i)))
			return i;
	return -1;
}

/* 0 for the forms whose operand cannot cross a cache line without #GP. */
static inline int slb_op_can_split(enum slb_op op)
{
	return op != SLB_OP_CMPXCHG16B;
}

/*
 * One LOCKed operation of kind op on the operand at p, of type T with
 * instruction suffix SFX (l: 32 bits, q: 64 bits).
 */
#define SLB_LOCK_OP(T, SFX, op, p)								\
	do {											\
		T *q_ = (p), w_ = 1, old_ = 0;							\
		switch (op) {									\
		case SLB_OP_ADD: __asm__ volatile("lock add" SFX " $1, %0" : "+m"(*q_) : : "cc"); break; \
		case SLB_OP_XADD:								\
			__asm__ volatile("lock xadd" SFX " %1, %0" : "+m"(*q_), "+r"(w_) : : "cc");	\
			break;									\
		case SLB_OP_XCHG: __asm__ volatile("xchg" SFX " %1, %0" : "+m"(*q_), "+r"(w_)); break; \
		case SLB_OP_CMPXCHG:								\
			__asm__ volatile("lock cmpxchg" SFX " %2, %0" : "+m"(*q_), "+a"(old_) : "r"(w_) : "cc"); \
			break;									\
		case SLB_OP_INC: __asm__ volatile("lock inc" SFX " %0" : "+m"(*q_) : : "cc"); break; \
		default: __asm__ volatile("lock bts" SFX " $3, %0" : "+m"(*q_) : : "cc"); break;	\
		}										\
	} while (0)

struct slb_u128 {
	uint64_t lo, hi;
};

/*
 * One LOCKed operation op of size bytes (4 or 8; ignored by CMPXCHG8B and
 * CMPXCHG16B) on p. CMPXCHG16B's p must be 16-byte aligned.
 */
static inline void slb_lock_op(enum slb_op op, int size, void *p)
{
	if (op == SLB_OP_CMPXCHG8B) {
		uint32_t lo = 0, hi = 0;

		__asm__ volatile("lock cmpxchg8b %0" : "+m"(*(uint64_t *)p), "+a"(lo), "+d"(hi)
				 : "b"(1u), "c"(0u) : "cc");
	} else if (op == SLB_OP_CMPXCHG16B) {
		uint64_t lo = 0, hi = 0;

		__asm__ volatile("lock cmpxchg16b %0" : "+m"(*(struct slb_u128 *)p), "+a"(lo), "+d"(hi)
				 : "b"(1ull), "c"(0ull) : "cc");
	} else if (size == 4) {
		SLB_LOCK_OP(uint32_t, "l", op, p);
	} else {
		SLB_LOCK_OP(uint64_t, "q", op, p);
	}
}

#endif
