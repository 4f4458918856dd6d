// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * slb-trapmatrix: guest test of the emulated split-lock detection. Runs
 * every LOCKed read-modify-write form (and XCHG, implicitly locked) at
 * each operand size on an aligned operand, one misaligned inside a cache
 * line, and one crossing a line, and checks against the architecture:
 *   - with detection on, exactly the line-crossing ones raise #AC(0),
 *     which Linux delivers as SIGBUS with si_code BUS_ADRALN;
 *   - the fault points at the locked instruction and leaves memory as it
 *     was;
 *   - with detection off nothing traps; unlocked accesses never trap;
 *   - CMPXCHG16B on a misaligned operand raises #GP (SIGSEGV) instead;
 *   - LOCK BTS/BTR/BTC on a register destination raises #UD (SIGILL);
 *   - BTS/BTR/BTC with a register bit offset is checked where the offset
 *     moves the operand (here into a crossing in the inline placement);
 *   - a GS or FS segment base is part of the address that is checked
 *     (FS, which glibc keeps for TLS, is switched to the test base around
 *     the instruction only, and back first thing in the signal handler);
 *   - the same holds in 32-bit code (compatibility mode: LOCK ADD, XCHG,
 *     CMPXCHG8B addressing through %edi), where the address is 32 bits;
 *   - an access crossing into an unmapped page raises #PF (SIGSEGV with
 *     si_addr = CR2 = the page start, or the operand if a bit offset moved
 *     it wholly into that page), detection on or off: #PF takes priority
 *     over #AC.
 * Detection state is given with --detect on|off (what the boot asked for)
 * and cross-checked with MSR_TEST_CTRL bit 29 where it can be read.
 * --detect bus-lock is bus-lock detection instead (DEBUGCTL bit 2, #AC
 * off, Linux in fatal mode): each locked line-crossing access completes
 * and then traps with #DB, which Linux answers with SIGBUS (BUS_ADRALN)
 * pointing past the instruction.
 * --mmio FILE adds cases on device memory (a PCI BAR's sysfs resource file,
 * mapped uncached): a LOCKed access there is a bus lock however it is
 * aligned, so bus-lock detection traps it and split-lock detection does not
 * (CMPXCHG16B included; a misaligned one is #GP and leaves no bus lock
 * behind for the next locked instruction).
 *
 * Output: one "ok - ..." / "not ok - ..." line per case, then a summary.
 * Exit status: 0 all cases as expected, 1 a mismatch, 2 usage error.
 *
 * Never run this on a real host with detection off: every crossing case
 * is a real bus lock. It is built for the TCG guest.
 */
#include "../lib/msr.h"
#include "../lib/num.h"
#include "../lib/splitaddr.h"

#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <sched.h>
#include <setjmp.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <asm/prctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <ucontext.h>
#include <unistd.h>


/* Addresses of the instruction under test and of the next one, stored by each case before it runs. */
uintptr_t slb_expected_rip, slb_next_rip;

/* FS base of the FS cases, and the program's own (TLS) to go back to. */
uintptr_t slb_fs_base, slb_fs_orig;

/* --detect: nothing, #AC before the access, #DB after it. */
enum detect { DETECT_OFF, DETECT_AC, DETECT_DB };

static sigjmp_buf jump;
static volatile sig_atomic_t got_sig, got_code;
static volatile uintptr_t got_rip, got_addr;

/* Store the addresses of labels 1 (the instruction) and 2 (the next one). */
#define STORE_RIPS                                                            \
	"lea 2f(%%rip), %%rax\n\t" "mov %%rax, slb_next_rip(%%rip)\n\t"       \
	"lea 1f(%%rip), %%rax\n\t" "mov %%rax, slb_expected_rip(%%rip)\n\t"

/* The instruction's other registers: %rcx = rcx, %rdx = %rbx = 0. */
#define SET_REGS(rcx) "mov $" #rcx ", %%rcx\n\t" "xor %%edx, %%edx\n\t" "xor %%ebx, %%ebx\n\t"

/*
 * CASE(name, text): a function running the single instruction text on the
 * operand at %rdi, after storing the instruction's address.
 */
#define CASE(name, text) CASE_RCX(name, text, 1)

/* CASE_RCX(name, text, rcx): the same with %rcx (bit offset, source) = rcx. */
#define CASE_RCX(name, text, rcx)                                             \
	static void name(void *p)                                             \
	{                                                                     \
		__asm__ volatile(STORE_RIPS SET_REGS(rcx)                     \
				 "1: " text "\n\t"                            \
				 "2:\n\t"                                      \
				 : : "D"(p) : "rax", "rbx", "rcx", "rdx",     \
				   "memory", "cc");                           \
	}

#define CASE3(op, text_w, text_l, text_q) \
	CASE(op##_2, text_w) CASE(op##_4, text_l) CASE(op##_8, text_q)

CASE(add_1, "lock addb $1, (%%rdi)")
CASE3(add, "lock addw $1, (%%rdi)", "lock addl $1, (%%rdi)", "lock addq $1, (%%rdi)")
CASE3(adc, "lock adcw $1, (%%rdi)", "lock adcl $1, (%%rdi)", "lock adcq $1, (%%rdi)")
CASE3(and, "lock andw $1, (%%rdi)", "lock andl $1, (%%rdi)", "lock andq $1, (%%rdi)")
CASE3(or, "lock orw $1, (%%rdi)", "lock orl $1, (%%rdi)", "lock orq $1, (%%rdi)")
CASE3(xor, "lock xorw $1, (%%rdi)", "lock xorl $1, (%%rdi)", "lock xorq $1, (%%rdi)")
CASE3(sub, "lock subw $1, (%%rdi)", "lock subl $1, (%%rdi)", "lock subq $1, (%%rdi)")
CASE3(sbb, "lock sbbw $1, (%%rdi)", "lock sbbl $1, (%%rdi)", "lock sbbq $1, (%%rdi)")
CASE3(inc, "lock incw (%%rdi)", "lock incl (%%rdi)", "lock incq (%%rdi)")
CASE3(dec, "lock decw (%%rdi)", "lock decl (%%rdi)", "lock decq (%%rdi)")
CASE3(neg, "lock negw (%%rdi)", "lock negl (%%rdi)", "lock negq (%%rdi)")
CASE3(not, "lock notw (%%rdi)", "lock notl (%%rdi)", "lock notq (%%rdi)")
CASE3(bts, "lock btsw $1, (%%rdi)", "lock btsl $1, (%%rdi)", "lock btsq $1, (%%rdi)")
CASE3(btr, "lock btrw $1, (%%rdi)", "lock btrl $1, (%%rdi)", "lock btrq $1, (%%rdi)")
CASE3(btc, "lock btcw $1, (%%rdi)", "lock btcl $1, (%%rdi)", "lock btcq $1, (%%rdi)")
CASE3(xadd, "lock xaddw %%cx, (%%rdi)", "lock xaddl %%ecx, (%%rdi)", "lock xaddq %%rcx, (%%rdi)")
CASE3(cmpxchg, "lock cmpxchgw %%cx, (%%rdi)", "lock cmpxchgl %%ecx, (%%rdi)", "lock cmpxchgq %%rcx, (%%rdi)")
CASE3(xchg, "xchgw %%cx, (%%rdi)", "xchgl %%ecx, (%%rdi)", "xchgq %%rcx, (%%rdi)")
CASE3(unlocked_add, "addw $1, (%%rdi)", "addl $1, (%%rdi)", "addq $1, (%%rdi)")
/*
 * A register bit offset moves the operand by offset / (8 * size) operands:
 * 31, 15 and 7 operands, so that from the inline placement (line + 1) the
 * access crosses the line and from the split one it does not.
 */
CASE_RCX(bts_off_2, "lock btsw %%cx, (%%rdi)", 496)
CASE_RCX(bts_off_4, "lock btsl %%ecx, (%%rdi)", 480)
CASE_RCX(bts_off_8, "lock btsq %%rcx, (%%rdi)", 448)
CASE_RCX(btr_off_4, "lock btrl %%ecx, (%%rdi)", 480)
CASE_RCX(btc_off_4, "lock btcl %%ecx, (%%rdi)", 480)
/* %rdi holds the offset from the GS base (set by main) to the operand. */
CASE3(gs_add, "lock addw $1, %%gs:(%%rdi)", "lock addl $1, %%gs:(%%rdi)", "lock addq $1, %%gs:(%%rdi)")
CASE3(gs_xchg, "xchgw %%cx, %%gs:(%%rdi)", "xchgl %%ecx, %%gs:(%%rdi)", "xchgq %%rcx, %%gs:(%%rdi)")

/* arch_prctl(ARCH_SET_FS, FIELD) as a raw system call: no libc, no TLS. */
#define SET_FS_ASM(field) \
	"mov $158, %%eax\n\t" /* SYS_arch_prctl */ "mov $0x1002, %%edi\n\t" /* ARCH_SET_FS */ \
	"mov " field "(%%rip), %%rsi\n\t" "syscall\n\t"

/*
 * CASE_FS(name, text): as CASE, with the FS base switched to slb_fs_base
 * around the instruction (%rdi: the operand's offset from it).
 */
#define CASE_FS(name, text)                                                   \
	static void name(void *p)                                             \
	{                                                                     \
		__asm__ volatile(STORE_RIPS                                   \
				 "mov %0, %%r12\n\t"                          \
				 SET_FS_ASM("slb_fs_base")                    \
				 "mov %%r12, %%rdi\n\t"                       \
				 SET_REGS(1)                                  \
				 "1: " text "\n\t"                            \
				 "2:\n\t"                                      \
				 SET_FS_ASM("slb_fs_orig")                    \
				 : : "r"(p) : "rax", "rbx", "rcx", "rdx", "rdi", \
				   "rsi", "r11", "r12", "memory", "cc");       \
	}
CASE_FS(fs_add_2, "lock addw $1, %%fs:(%%rdi)")
CASE_FS(fs_add_4, "lock addl $1, %%fs:(%%rdi)")
CASE_FS(fs_add_8, "lock addq $1, %%fs:(%%rdi)")

/*
 * CASE32(name, text): as CASE, with text run as 32-bit code (compatibility
 * mode): a far jump into the kernel's 32-bit user code segment (__USER32_CS,
 * selector 0x23), the instruction addressing through %edi, and a far jump
 * back to __USER_CS (0x33). No stack use in between (%esp is not the
 * stack there); code and operand must lie below 4 GiB (main checks). Not a
 * far return: qemu 7.2's TCG pops its stack with a supervisor access,
 * which SMAP refuses for a user stack (a #PF the guest kernel oopses on).
 * The upper halves of the registers are undefined after compatibility
 * mode (an interrupt taken there returns with %rsp cut to 32 bits, as
 * TCG does): %rsp and %rbp are saved before and restored after, %rdi is
 * an output, the rest are clobbered.
 */
/* The far pointer (m16:32) of the jump into 32-bit code: offset, selector. */
struct __attribute__((packed)) {
	uint32_t offset;
	uint16_t selector;
} slb_far32 = { 0, 0x23 };

/* %rsp and %rbp across the 32-bit code. */
uint64_t slb_saved_rsp, slb_saved_rbp;

#define CASE32(name, text)                                                    \
	static void name(void *p)                                             \
	{                                                                     \
		__asm__ volatile(STORE_RIPS SET_REGS(1)                       \
				 "lea 3f(%%rip), %%rax\n\t"                   \
				 "mov %%eax, slb_far32(%%rip)\n\t"            \
				 "mov %%rsp, slb_saved_rsp(%%rip)\n\t"        \
				 "mov %%rbp, slb_saved_rbp(%%rip)\n\t"        \
				 "ljmpl *slb_far32(%%rip)\n\t"                \
				 ".code32\n"                                  \
				 "3:\n"                                       \
				 "1: " text "\n"                              \
				 "2: ljmp $0x33, $4f\n\t"                     \
				 ".code64\n"                                  \
				 "4: mov slb_saved_rsp(%%rip), %%rsp\n\t"     \
				 "mov slb_saved_rbp(%%rip), %%rbp\n\t"        \
				 : "+D"(p) : : "rax", "rbx", "rcx", "rdx", "r8", \
				   "r9", "r10", "r11", "r12", "r13", "r14",   \
				   "r15", "memory", "cc");                    \
	}
CASE32(c32_add_2, "lock addw $1, (%%edi)")
CASE32(c32_add_4, "lock addl $1, (%%edi)")
CASE32(c32_xchg_2, "xchgw %%cx, (%%edi)")
CASE32(c32_xchg_4, "xchgl %%ecx, (%%edi)")
CASE32(c32_cmpxchg8b_8, "lock cmpxchg8b (%%edi)")
/* A million iterations of 32-bit code: long enough for interrupts to land there. */
CASE32(c32_spin, "mov $1000000, %%ecx\n5: dec %%ecx\n\tjnz 5b")

/* Local timer interrupts taken so far by CPU cpu (/proc/interrupts, LOC), -1 if unknown. */
static long long timer_interrupts(int cpu)
{
	FILE *f = fopen("/proc/interrupts", "r");
	char line[4096];
	long long n = -1;

	while (f && fgets(line, sizeof(line), f)) {
		char *tok = strtok(line, " \t\n");

		if (!tok || strcmp(tok, "LOC:"))
			continue;
		for (int i = 0; (tok = strtok(NULL, " \t\n")) && i <= cpu; i++)
			if (i == cpu)
				n = strtoll(tok, NULL, 10);
	}
	if (f)
		fclose(f);
	return n;
}

/*
 * Run 32-bit code until timer interrupts have come in during it (an
 * interrupt taken in compatibility mode returns with %rsp cut to 32 bits):
 * returns 1 if it failed, that is if it never saw one. An ignored CPU-time
 * interval timer keeps the tick going, also on a nohz_full CPU.
 */
static int check_code32_interrupts(int cpu)
{
	struct itimerval it = { { 0, 1000 }, { 0, 1000 } }, off = { { 0, 0 }, { 0, 0 } };
	long long before = timer_interrupts(cpu), after = before;
	int rounds = 0;

	signal(SIGPROF, SIG_IGN);
	setitimer(ITIMER_PROF, &it, NULL);
	while (before >= 0 && after - before < 3 && rounds++ < 2000) {
		c32_spin(NULL);
		after = timer_interrupts(cpu);
	}
	setitimer(ITIMER_PROF, &off, NULL);
	if (before < 0 || after - before < 3) {
		printf("not ok - 32-bit code: no timer interrupts on CPU %d to run it across (%lld)\n", cpu, before);
		return 1;
	}
	printf("ok - 32-bit code runs on across %lld timer interrupts (%d rounds of 1e6 iterations)\n",
	       after - before, rounds);
	return 0;
}

/* Back to the program's own FS base (a signal may come from an FS case). */
static inline void restore_fs(void)
{
	__asm__ volatile(SET_FS_ASM("slb_fs_orig") : : : "rax", "rcx", "rdi", "rsi", "r11", "memory");
}
/*
 * LOCK on a register destination is #UD: the assembler refuses to write
 * it, so the bytes are spelled out (%ebx destination, %ecx bit offset).
 */
CASE(bts_imm_reg_4, ".byte 0xf0, 0x0f, 0xba, 0xeb, 0x01")	/* lock bts $1, %ebx */
CASE(bts_reg_reg_4, ".byte 0xf0, 0x0f, 0xab, 0xcb")		/* lock bts %ecx, %ebx */
CASE(btr_reg_reg_4, ".byte 0xf0, 0x0f, 0xb3, 0xcb")		/* lock btr %ecx, %ebx */
CASE(btc_reg_reg_4, ".byte 0xf0, 0x0f, 0xbb, 0xcb")		/* lock btc %ecx, %ebx */
CASE(cmpxchg8b_8, "lock cmpxchg8b (%%rdi)")
CASE(cmpxchg16b_16, "lock cmpxchg16b (%%rdi)")

struct insn {
	const char *name;
	int size;
	void (*fn)(void *);
	int locked;
	int regdest;	/* LOCK on a register destination: #UD wherever p is */
	int disp;	/* bytes the register bit offset moves the operand */
	int seg;	/* addressed through a segment base: SEG_GS, SEG_FS */
	int code32;	/* runs as 32-bit code: operand below 4 GiB */
};

enum { SEG_NONE, SEG_GS, SEG_FS };

#define ROW3(op, locked) \
	{ #op, 2, op##_2, locked, 0, 0, 0, 0 }, { #op, 4, op##_4, locked, 0, 0, 0, 0 }, \
	{ #op, 8, op##_8, locked, 0, 0, 0, 0 }
#define ROW3_SEG(op, name, seg) \
	{ name, 2, op##_2, 1, 0, 0, seg, 0 }, { name, 4, op##_4, 1, 0, 0, seg, 0 }, \
	{ name, 8, op##_8, 1, 0, 0, seg, 0 }

static const struct insn insns[] = {
	ROW3(add, 1), ROW3(adc, 1), ROW3(and, 1), ROW3(or, 1), ROW3(xor, 1),
	ROW3(sub, 1), ROW3(sbb, 1), ROW3(inc, 1), ROW3(dec, 1), ROW3(neg, 1),
	ROW3(not, 1), ROW3(bts, 1), ROW3(btr, 1), ROW3(btc, 1), ROW3(xadd, 1),
	ROW3(cmpxchg, 1), ROW3(xchg, 1),
	{ "cmpxchg8b", 8, cmpxchg8b_8, 1, 0, 0, 0, 0 },
	{ "cmpxchg16b", 16, cmpxchg16b_16, 1, 0, 0, 0, 0 },
	{ "bts $1 to a register", 4, bts_imm_reg_4, 1, 1, 0, 0, 0 },
	{ "bts to a register", 4, bts_reg_reg_4, 1, 1, 0, 0, 0 },
	{ "btr to a register", 4, btr_reg_reg_4, 1, 1, 0, 0, 0 },
	{ "btc to a register", 4, btc_reg_reg_4, 1, 1, 0, 0, 0 },
	{ "bts, register bit offset 496,", 2, bts_off_2, 1, 0, 62, 0, 0 },
	{ "bts, register bit offset 480,", 4, bts_off_4, 1, 0, 60, 0, 0 },
	{ "bts, register bit offset 448,", 8, bts_off_8, 1, 0, 56, 0, 0 },
	{ "btr, register bit offset 480,", 4, btr_off_4, 1, 0, 60, 0, 0 },
	{ "btc, register bit offset 480,", 4, btc_off_4, 1, 0, 60, 0, 0 },
	ROW3_SEG(gs_add, "add via %gs", SEG_GS), ROW3_SEG(gs_xchg, "xchg via %gs", SEG_GS),
	ROW3_SEG(fs_add, "add via %fs", SEG_FS),
	{ "add in 32-bit code", 2, c32_add_2, 1, 0, 0, 0, 1 },
	{ "add in 32-bit code", 4, c32_add_4, 1, 0, 0, 0, 1 },
	{ "xchg in 32-bit code", 2, c32_xchg_2, 1, 0, 0, 0, 1 },
	{ "xchg in 32-bit code", 4, c32_xchg_4, 1, 0, 0, 0, 1 },
	{ "cmpxchg8b in 32-bit code", 8, c32_cmpxchg8b_8, 1, 0, 0, 0, 1 },
	ROW3(unlocked_add, 0),
};

/*
 * Placements, in the order printed: the first three from lib/splitaddr.h
 * in a line of buf; the last straddles the end of a page whose next page
 * is unmapped.
 */
enum { PLACE_PAGE = 3, N_PLACES };
static const enum slb_mode places[] = { SLB_MODE_ALIGNED, SLB_MODE_INLINE, SLB_MODE_SPLIT };
static const char *const place_name[N_PLACES] = { "aligned", "inline", "split", "crossing into an unmapped page" };

enum result { NONE, AC, GP, UD, PF, DB, OTHER };
static const char *const result_name[] = { "no trap", "#AC (SIGBUS/BUS_ADRALN)", "#GP (SIGSEGV)", "#UD (SIGILL)",
					   "#PF (SIGSEGV at the first unmapped byte)",
					   "bus-lock #DB (SIGBUS/BUS_ADRALN past the instruction)", "other signal" };

static void on_signal(int sig, siginfo_t *si, void *uc_)
{
	ucontext_t *uc = uc_;

	restore_fs();
	got_sig = sig;
	got_code = si->si_code;
	got_rip = (uintptr_t)uc->uc_mcontext.gregs[REG_RIP];
	got_addr = (uintptr_t)si->si_addr;
	siglongjmp(jump, 1);
}

/* Run fn(p); returns the signal it raised, 0 if none. */
static __attribute__((noinline)) int run_one(void (*fn)(void *), void *p)
{
	got_sig = 0;
	if (!sigsetjmp(jump, 1))
		fn(p);
	return got_sig;
}

/*
 * What the architecture says of in at p (at pl): #UD, #GP, #PF (before
 * #AC), #AC, #DB (after the access) or nothing.
 */
static enum result expected(const struct insn *in, const unsigned char *p, int pl, enum detect detect)
{
	uintptr_t a = (uintptr_t)p + (uintptr_t)in->disp;

	if (in->regdest)
		return UD;
	if (in->size == 16 && a % 16)
		return GP;
	if (pl == PLACE_PAGE)
		return PF;
	if (detect == DETECT_OFF || !in->locked || !slb_crosses_line(a, (size_t)in->size))
		return NONE;
	return detect == DETECT_AC ? AC : DB;
}

/*
 * The signal the case raised, as a result: SIGSEGV is #PF when it reports
 * the faulting address fault_at (not 0), #GP (si_addr 0) otherwise.
 */
static enum result classify(int sig, uintptr_t fault_at)
{
	if (!sig)
		return NONE;
	if (sig == SIGBUS && got_code == BUS_ADRALN)
		return got_rip == slb_next_rip ? DB : AC;
	if (sig == SIGSEGV)
		return got_code == SEGV_MAPERR && got_addr == fault_at && fault_at ? PF : GP;
	return sig == SIGILL ? UD : OTHER;
}

/* Print the outcome of one case; returns 1 if it is not what was expected. */
static int report(const struct insn *in, const char *place, enum result want, enum result got, int rip_ok,
		  int mem_ok, uintptr_t fault_at)
{
	if (got == want && rip_ok && mem_ok) {
		printf("ok - %s%s size %d %s: %s\n", in->locked ? "lock " : "", in->name, in->size, place,
		       result_name[got]);
		return 0;
	}
	printf("not ok - %s%s size %d %s: expected %s, got %s%s%s", in->locked ? "lock " : "", in->name, in->size,
	       place, result_name[want], result_name[got], rip_ok ? "" : ", RIP not at the instruction",
	       mem_ok ? "" : ", memory changed by a faulting access");
	if (got_sig == SIGSEGV)
		printf(" (si_addr %#lx, expected %#lx)", (unsigned long)got_addr, (unsigned long)fault_at);
	printf("\n");
	return 1;
}

/*
 * --mmio: the cases run on a device register (a PCI BAR's sysfs resource
 * file, mapped uncached), at MMIO_OFFSET of its first page. A LOCKed access
 * to uncacheable memory takes a bus lock however it is aligned: bus-lock
 * detection traps it (#DB after it), split-lock detection does not (#AC is
 * for line-crossing accesses only). The edu device's register 0x80 (DMA
 * source address) takes 4- and 8-byte accesses and ignores the rest.
 */
#define MMIO_OFFSET 0x80
static const struct mmio_case {
	struct insn in;
	int off;	/* from MMIO_OFFSET */
} mmio_cases[] = {
	{ { "add", 1, add_1, 1, 0, 0, 0, 0 }, 0 },
	{ { "add", 4, add_4, 1, 0, 0, 0, 0 }, 0 },
	{ { "add", 8, add_8, 1, 0, 0, 0, 0 }, 0 },
	{ { "xchg", 4, xchg_4, 1, 0, 0, 0, 0 }, 0 },
	{ { "cmpxchg", 4, cmpxchg_4, 1, 0, 0, 0, 0 }, 0 },
	{ { "cmpxchg16b", 16, cmpxchg16b_16, 1, 0, 0, 0, 0 }, 0 },
	/* misaligned: #GP, which must leave no bus lock behind (checked next) */
	{ { "cmpxchg16b", 16, cmpxchg16b_16, 1, 0, 0, 0, 0 }, 8 },
	{ { "unlocked_add", 4, unlocked_add_4, 0, 0, 0, 0, 0 }, 0 },
};

/* Run mmio_cases on the device memory of resource file path; returns the mismatches. */
static int run_mmio(const char *path, enum detect detect, int *n, int *traps)
{
	int fd = open(path, O_RDWR | O_SYNC), bad = 0;
	unsigned char *io = fd < 0 ? MAP_FAILED : mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	static uint64_t ram __attribute__((aligned(8)));
	char place[64];

	if (io == MAP_FAILED) {
		printf("not ok - cannot map device memory %s: %s\n", path, strerror(errno));
		return 1;
	}
	for (size_t i = 0; i < sizeof(mmio_cases) / sizeof(mmio_cases[0]); i++) {
		const struct insn *in = &mmio_cases[i].in;
		unsigned char *p = io + MMIO_OFFSET + mmio_cases[i].off;
		enum result want = in->size == 16 && (uintptr_t)p % 16 ? GP
				   : in->locked && detect == DETECT_DB ? DB : NONE;
		enum result got = classify(run_one(in->fn, p), 0);
		int rip_ok = got == NONE || got == DB || got_rip == slb_expected_rip;

		*traps += got == AC || got == DB;
		++*n;
		snprintf(place, sizeof(place), "%s on device memory (MMIO)", (uintptr_t)p % in->size ? "misaligned" : "aligned");
		bad += report(in, place, want, got, rip_ok, 1, 0);
		if (want == GP) {
			/* a bus lock marked before the #GP must not trap here */
			got = classify(run_one(add_4, &ram), 0);
			++*n;
			bad += report(&mmio_cases[1].in, "aligned in RAM, after that #GP", NONE, got, 1, 1, 0);
		}
	}
	munmap(io, 4096);
	close(fd);
	return bad;
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "detect", required_argument, NULL, 'd' },
		{ "cpu", required_argument, NULL, 'c' },
		{ "mmio", required_argument, NULL, 'm' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	static unsigned char buf[4 * SLB_LINE] __attribute__((aligned(4096)));
	struct sigaction sa;
	unsigned char before[4 * SLB_LINE], *pages, *page_end;
	long pagesz = sysconf(_SC_PAGESIZE);
	uintptr_t gs_base = (uintptr_t)buf + 3;	/* odd: the base adds to the misalignment */
	int c, detect = -1, bad = 0, n = 0, traps = 0, cpu = 0, err, no_code32 = 0;
	static const char *const detect_name[] = { "off", "on", "bus-lock" };
	double d;
	uint64_t tc;
	cpu_set_t one;
	const char *mmio = NULL;

	/* a line per case, even into a file: a crash keeps what ran before it */
	setvbuf(stdout, NULL, _IOLBF, 0);
	while ((c = getopt_long(argc, argv, "d:c:m:h", opts, NULL)) != -1) {
		switch (c) {
		case 'c':
			if (num_parse("slb-trapmatrix", "--cpu", optarg, 0, CPU_SETSIZE - 1, 1, &d))
				return 2;
			cpu = (int)d;
			break;
		case 'd':
			for (detect = DETECT_DB; detect >= 0 && strcmp(optarg, detect_name[detect]); detect--)
				;
			if (detect < 0) {
				fprintf(stderr, "slb-trapmatrix: --detect '%s' is not on, off or bus-lock\n", optarg);
				return 2;
			}
			break;
		case 'm':
			mmio = optarg;
			break;
		case 'h':
			printf("Usage: slb-trapmatrix --detect on|off|bus-lock [--cpu N] [--mmio RESOURCE_FILE]\n"
			       "Check which LOCKed accesses raise #AC or #DB (see the source header).\n"
			       "Exit status: 0 as expected, 1 mismatch, 2 usage error.\n");
			return 0;
		default:
			return 2;
		}
	}
	if (detect < 0) {
		fprintf(stderr, "slb-trapmatrix: --detect on|off|bus-lock is required\n");
		return 2;
	}
	CPU_ZERO(&one);
	CPU_SET(cpu, &one);
	if (sched_setaffinity(0, sizeof(one), &one)) {
		fprintf(stderr, "slb-trapmatrix: cannot run on CPU %d: %s\n", cpu, strerror(errno));
		return 1;
	}
	if ((err = msr_access(cpu, 0x33, &tc, 0)) == 0) {
		int on = !!(tc & (1ull << 29));

		printf("%s - MSR_TEST_CTRL on CPU %d is 0x%llx: detection %s\n",
		       on == (detect == DETECT_AC) ? "ok" : "not ok", cpu, (unsigned long long)tc, on ? "on" : "off");
		bad += on != (detect == DETECT_AC);
	} else {
		printf("# MSR_TEST_CTRL not readable (%s): absent or no msr driver\n", strerror(err));
	}
	if (detect == DETECT_DB) {
		int on = msr_access(cpu, 0x1d9, &tc, 0) == 0 && (tc & (1ull << 2));

		printf("%s - DEBUGCTL on CPU %d has BUS_LOCK_DETECT (bit 2) set\n", on ? "ok" : "not ok", cpu);
		bad += !on;
	}

	/* Two pages, the second unmapped again: page_end is where it began. */
	pages = mmap(NULL, 2 * (size_t)pagesz, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_32BIT,
		     -1, 0);
	if (pages == MAP_FAILED || munmap(pages + pagesz, (size_t)pagesz)) {
		fprintf(stderr, "slb-trapmatrix: cannot map a page before a hole: %s\n", strerror(errno));
		return 1;
	}
	page_end = pages + pagesz;
	/* 32-bit code reaches only the low 4 GiB: a PIE build could not run it */
	if (((uintptr_t)buf | (uintptr_t)page_end | (uintptr_t)c32_add_2) >> 32) {
		printf("not ok - 32-bit cases: code or operands above 4 GiB (build static, not PIE)\n");
		bad++;
		no_code32 = 1;
	}
	slb_fs_base = (uintptr_t)buf + 5;
	if (syscall(SYS_arch_prctl, ARCH_GET_FS, &slb_fs_orig) || syscall(SYS_arch_prctl, ARCH_SET_GS, gs_base)) {
		fprintf(stderr, "slb-trapmatrix: cannot read the FS or set the GS base: %s\n", strerror(errno));
		return 1;
	}

	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = on_signal;
	sa.sa_flags = SA_SIGINFO | SA_NODEFER;
	sigaction(SIGBUS, &sa, NULL);
	sigaction(SIGSEGV, &sa, NULL);
	sigaction(SIGILL, &sa, NULL);

	for (size_t i = 0; i < sizeof(insns) / sizeof(insns[0]); i++) {
		for (int pl = 0; pl < N_PLACES; pl++) {
			const struct insn *in = &insns[i];
			/* the target line is the second of buf, or the page's last */
			unsigned char *area = pl == PLACE_PAGE ? page_end - sizeof(buf) : buf;
			unsigned char *p = pl == PLACE_PAGE ? page_end - in->size / 2
							    : slb_operand(buf + SLB_LINE, places[pl], (size_t)in->size);
			enum result want = expected(in, p, pl, detect), got;
			int rip_ok = 1, mem_ok = 1;
			/* CR2: the first byte of the access that is in the unmapped page */
			uintptr_t a = (uintptr_t)p + (uintptr_t)in->disp;
			uintptr_t fault_at = pl != PLACE_PAGE ? 0 : a > (uintptr_t)page_end ? a : (uintptr_t)page_end;
			uintptr_t seg_base;

			if (in->code32 && no_code32)
				continue;
			for (size_t k = 0; k < sizeof(buf); k++)
				area[k] = (unsigned char)(k * 7 + i);
			memcpy(before, area, sizeof(buf));
			seg_base = in->seg == SEG_GS ? gs_base : in->seg == SEG_FS ? slb_fs_base : 0;
			got = classify(run_one(in->fn, (void *)((uintptr_t)p - seg_base)), fault_at);
			/* a fault leaves all as it was; #DB comes after the access */
			if (got != NONE && got != DB) {
				rip_ok = got_rip == slb_expected_rip;
				mem_ok = !memcmp(before, area, sizeof(buf));
			}
			traps += got == AC || got == DB;
			n++;
			bad += report(in, place_name[pl], want, got, rip_ok, mem_ok, fault_at);
		}
	}
	if (!no_code32)
		bad += check_code32_interrupts(cpu);
	if (mmio)
		bad += run_mmio(mmio, detect, &n, &traps);
	printf("# CPU %d: %d cases, %d %s traps, %d unexpected (detection %s)\n", cpu, n, traps,
	       detect == DETECT_DB ? "#DB" : "#AC", bad, detect_name[detect]);
	return bad ? 1 : 0;
}
