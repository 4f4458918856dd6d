// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * slb-busdb: guest test of how the emulated bus-lock #DB (DEBUGCTL bit 2,
 * patch/qemu 0006) goes together with the other #DB traps of the same
 * instruction. Hardware reports them all in one #DB (DR6.BS or B0-B3, and
 * DR6.BLD cleared), after the instruction; Linux 6.12's exc_debug_user
 * then handles the bus lock (fatal mode: SIGBUS, BUS_ADRALN) and sends
 * SIGTRAP for the step or breakpoint, so both signals come at the
 * instruction after the locked one. Each case runs a LOCK ADD on a
 * line-crossing operand (a bus lock) and, as a control, on an aligned one:
 *   - step: TF set by POPF just before the LOCK ADD (the trap comes after
 *     the instruction following POPF): SIGTRAP with si_code TRAP_TRACE
 *     at the next instruction, and SIGBUS there for the split operand;
 *   - breakpoint: a child traced with ptrace, a data breakpoint (DR0/DR7
 *     by PTRACE_POKEUSER: write, 1 byte) on the operand's first byte:
 *     SIGTRAP with TRAP_HWBKPT and DR6 bit 0 (PTRACE_PEEKUSER) at the next
 *     instruction, and SIGBUS there for the split operand; nothing else.
 * Run it where bus locks are fatal and trap with #DB only (a vCPU with
 * bus-lock-detect and without split-lock-detect, split_lock_detect=fatal).
 *
 * Output: one "ok - ..." / "not ok - ..." line per case, then a summary.
 * Exit status: 0 all cases as expected, 1 a mismatch, 2 usage error.
 */
#include "../lib/splitaddr.h"

#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/user.h>
#include <sys/wait.h>
#include <ucontext.h>
#include <unistd.h>

/* slb_step_add(p): TF on, LOCK ADD on p, a NOP, TF off (labels for the RIPs). */
void slb_step_add(void *p);
extern const char slb_step_next[];

/* slb_bp_add(p): LOCK ADD on p; slb_bp_next is the instruction after it. */
void slb_bp_add(void *p);
extern const char slb_bp_next[];

__asm__(".text\n"
	".globl slb_step_add, slb_step_next, slb_bp_add, slb_bp_next\n"
	"slb_step_add:\n\t"
	"pushfq\n\t" "orq $0x100, (%rsp)\n\t" "popfq\n\t"
	"lock addl $1, (%rdi)\n"
	"slb_step_next:\n\t"
	"nop\n\t"
	"pushfq\n\t" "andq $~0x100, (%rsp)\n\t" "popfq\n\t"
	"ret\n"
	"slb_bp_add:\n\t"
	"lock addl $1, (%rdi)\n"
	"slb_bp_next:\n\t"
	"ret\n");

/* A signal as the case saw it. */
struct event {
	int sig, code;
	uintptr_t rip;
	unsigned long dr6;	/* breakpoint case: PTRACE_PEEKUSER of DR6 */
};

#define MAX_EVENTS 8
static struct event ev[MAX_EVENTS];
static volatile sig_atomic_t n_ev;

static void on_signal(int sig, siginfo_t *si, void *uc_)
{
	ucontext_t *uc = uc_;

	if (n_ev < MAX_EVENTS)
		ev[n_ev++] = (struct event){ sig, si->si_code, (uintptr_t)uc->uc_mcontext.gregs[REG_RIP], 0 };
	if (sig == SIGTRAP)
		uc->uc_mcontext.gregs[REG_EFL] &= ~0x100L;	/* the step is taken */
}

/*
 * Compare the events with the expectation: a SIGTRAP with si_code code at
 * next (and DR6 bit 0 if want_b0), a SIGBUS (BUS_ADRALN) there if split,
 * nothing else. Prints the line; returns 1 on a mismatch.
 */
static int check(const char *what, int split, int code, int want_b0, uintptr_t next)
{
	int traps = 0, buses = 0, other = 0;

	for (int i = 0; i < n_ev; i++) {
		const struct event *e = &ev[i];

		if (e->sig == SIGTRAP && e->code == code && e->rip == next && (!want_b0 || (e->dr6 & 1)))
			traps++;
		else if (e->sig == SIGBUS && e->code == BUS_ADRALN && e->rip == next)
			buses++;
		else
			other++;
	}
	if (traps == 1 && buses == split && !other) {
		printf("ok - %s, %s operand: %s at the next instruction\n", what, split ? "split" : "aligned",
		       split ? "SIGTRAP and the bus-lock SIGBUS" : "SIGTRAP only");
		return 0;
	}
	printf("not ok - %s, %s operand: expected SIGTRAP (si_code %d)%s at %#lx%s; got", what,
	       split ? "split" : "aligned", code, want_b0 ? " with DR6.B0" : "", (unsigned long)next,
	       split ? " and SIGBUS (BUS_ADRALN)" : " only");
	for (int i = 0; i < n_ev; i++)
		printf(" [signal %d code %d at %#lx dr6 %#lx]", ev[i].sig, ev[i].code, (unsigned long)ev[i].rip,
		       ev[i].dr6);
	printf(n_ev ? "\n" : " nothing\n");
	return 1;
}

/* Single step by TF over the LOCK ADD on p. */
static int step_case(unsigned char *p, int split)
{
	n_ev = 0;
	slb_step_add(p);
	return check("single step (TF) over lock add", split, TRAP_TRACE, 0, (uintptr_t)slb_step_next);
}

/* A data breakpoint on p's first byte, set by a tracer; the child runs the LOCK ADD on p. */
static int bp_case(unsigned char *p, int split)
{
	const long dr7 = 0x1 | (0x1L << 16);	/* L0, R/W0 = write, LEN0 = 1 byte */
	struct user_regs_struct regs;
	siginfo_t si;
	int st;
	pid_t pid = fork();

	if (pid < 0) {
		printf("not ok - data breakpoint: fork: %s\n", strerror(errno));
		return 1;
	}
	if (pid == 0) {
		signal(SIGBUS, SIG_DFL);
		signal(SIGTRAP, SIG_DFL);
		if (ptrace(PTRACE_TRACEME, 0, NULL, NULL))
			_exit(3);
		raise(SIGSTOP);
		slb_bp_add(p);
		_exit(0);
	}
	n_ev = 0;
	if (waitpid(pid, &st, 0) != pid || !WIFSTOPPED(st) ||
	    ptrace(PTRACE_POKEUSER, pid, (void *)offsetof(struct user, u_debugreg[0]), p) ||
	    ptrace(PTRACE_POKEUSER, pid, (void *)offsetof(struct user, u_debugreg[7]), (void *)dr7)) {
		printf("not ok - data breakpoint: cannot set DR0/DR7 on the child: %s\n", strerror(errno));
		kill(pid, SIGKILL);
		waitpid(pid, &st, 0);
		return 1;
	}
	/* every stop is recorded and its signal suppressed, up to MAX_EVENTS */
	while (!ptrace(PTRACE_CONT, pid, NULL, NULL) && waitpid(pid, &st, 0) == pid && WIFSTOPPED(st)) {
		struct event e = { WSTOPSIG(st), 0, 0, 0 };

		if (!ptrace(PTRACE_GETSIGINFO, pid, NULL, &si))
			e.code = si.si_code;
		if (!ptrace(PTRACE_GETREGS, pid, NULL, &regs))
			e.rip = regs.rip;
		errno = 0;
		e.dr6 = (unsigned long)ptrace(PTRACE_PEEKUSER, pid, (void *)offsetof(struct user, u_debugreg[6]),
					      NULL);
		if (n_ev == MAX_EVENTS) {
			kill(pid, SIGKILL);
			continue;
		}
		ev[n_ev++] = e;
	}
	if (!WIFEXITED(st) || WEXITSTATUS(st)) {
		printf("not ok - data breakpoint, %s operand: the child did not exit 0 (wait status %#x)\n",
		       split ? "split" : "aligned", st);
		kill(pid, SIGKILL);
		waitpid(pid, &st, 0);
		return 1;
	}
	return check("data breakpoint on the operand", split, TRAP_HWBKPT, 1, (uintptr_t)slb_bp_next);
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	static unsigned char buf[4 * SLB_LINE] __attribute__((aligned(SLB_LINE)));
	unsigned char *split = slb_operand(buf + SLB_LINE, SLB_MODE_SPLIT, 4);
	unsigned char *aligned = slb_operand(buf + SLB_LINE, SLB_MODE_ALIGNED, 4);
	struct sigaction sa;
	int c, bad = 0;

	while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		if (c == 'h') {
			printf("Usage: slb-busdb\n"
			       "Check that a bus-lock #DB and a single step or data breakpoint of the same\n"
			       "instruction come as one #DB (see the source header). Run with bus locks fatal\n"
			       "and trapped by #DB only.\n"
			       "Exit status: 0 as expected, 1 mismatch, 2 usage error.\n");
			return 0;
		}
		return 2;
	}
	if (optind < argc) {
		fprintf(stderr, "slb-busdb: unexpected argument '%s' (none are taken)\n", argv[optind]);
		return 2;
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = on_signal;
	sa.sa_flags = SA_SIGINFO;
	/* one handler at a time: each sees the interrupted instruction's context */
	sigemptyset(&sa.sa_mask);
	sigaddset(&sa.sa_mask, SIGBUS);
	sigaddset(&sa.sa_mask, SIGTRAP);
	sigaction(SIGBUS, &sa, NULL);
	sigaction(SIGTRAP, &sa, NULL);

	bad += step_case(aligned, 0);
	bad += step_case(split, 1);
	bad += bp_case(aligned, 0);
	bad += bp_case(split, 1);
	printf("# 4 cases, %d unexpected\n", bad);
	return bad ? 1 : 0;
}
