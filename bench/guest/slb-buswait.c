// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * slb-buswait: guest probes of what the emulated bus-lock model (patch/qemu
 * 0008-0009 and after) makes one vCPU wait for another's split locks. Each
 * case runs two threads, one pinned to each of CPUs 0 and 1, for
 * --duration seconds per run, and prints key=value lines (ns figures of
 * the guest's CLOCK_MONOTONIC, deterministic under the virtual clock):
 *   rate      CPU 0 takes one LOCK ADD every --gap-us, split or (the
 *             reference) aligned, while CPU 1 chases a 4 MiB random cycle
 *             (every step a miss): rate.lost_ns_per_lock is what each split
 *             lock cost CPU 1, (split - aligned ns per step) x steps / locks;
 *   pair      both CPUs take split locks back to back (pair.ns_per_op_cpuN),
 *             and CPU 0 alone (pair.alone_ns_per_op): two issuers' locks
 *             take turns on the bus;
 *   coherent  CPU 0 writes a word in each line of a 2 KiB buffer, then takes
 *             --locks split locks, in a loop; CPU 1 reads a word of each line
 *             of that buffer, then spins --spin times on registers alone
 *             (so that its reads fall anywhere in CPU 0's loop), in a loop:
 *             coherent.shared_ns_per_pass, and the same with CPU 0 writing
 *             a buffer of its own (coherent.private_ns_per_pass; the
 *             passes CPU 1 made, coherent.*_passes, count every wait);
 *   code      CPU 1 runs a slab of --code-kb KiB of NOPs, in a loop, while
 *             CPU 0 takes split or (the reference) aligned locks back to back:
 *             code.slowdown is split over aligned ns per pass;
 *   idle      CPU 1 sleeps 50 us, then reads a word of each line of a 2 KiB
 *             buffer of its own, in a loop, while CPU 0 takes split or
 *             aligned locks back to back: idle.slowdown is split over
 *             aligned ns per pass after a wake-up (the buffer stays in
 *             the cache unless the cache goes cold over a sleep);
 *   tsc       CPU 1 takes one split lock every --gap-us while CPU 0 steps
 *             the chase of rate, each step between two RDTSCs with nothing
 *             else between them: tsc.max_step_ns is the longest step, in
 *             ns (the TSC's rate measured over the run), and
 *             tsc.short_gaps counts the gaps between one step's second
 *             RDTSC and the next one's first longer than 100 and at most
 *             1000 TSC ticks: the loop between takes a few ns, an
 *             interrupt microseconds. A step that waits for a bus lock
 *             longer than its vCPU's slice has left must still read the
 *             whole wait between its two RDTSCs, not in the gap after
 *             them (the boot vCPU, CPU 0, runs after the others in
 *             lock-step's rounds, so it meets each lock at the access
 *             that waits for it).
 * Run it where split locks do not trap (split_lock_detect=off).
 *
 * Exit status: 0 done, 1 failure (cannot pin a thread or map memory), 2 bad
 * input.
 */
#include <errno.h>
#include <getopt.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>

#define PROG "slb-buswait"
#define LINE 64
#define CHASE_BYTES (4u << 20)
#define SHARED_LINES 32

static double duration = 0.05;
static double gap_us = 100;
static int locks = 4;
static long spin = 200;
static long code_kb = 256;

static _Alignas(LINE) unsigned char lock_buf[2][2 * LINE];
static _Alignas(LINE) unsigned char shared_buf[SHARED_LINES * LINE];
static _Alignas(LINE) unsigned char private_buf[SHARED_LINES * LINE];
static atomic_int go, stop;

static int64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static void lock_add(void *p)
{
	__asm__ volatile("lock addl $1, (%0)" : : "r"(p) : "memory");
}

/* CPU n's operand: split across a line boundary, or aligned. */
static void *operand(int n, int split)
{
	return split ? lock_buf[n] + LINE - 2 : lock_buf[n];
}

struct job {
	int cpu;
	void *(*fn)(struct job *);
	int split;		/* issuers: split operand */
	double gap_ns;		/* issuers: 0 = back to back */
	unsigned char *write;	/* coherent: the buffer CPU 0 writes */
	uint64_t count;		/* out: locks, steps or passes */
	int64_t ns;		/* out: time they took */
};

static void *issuer(struct job *j)
{
	void *p = operand(j->cpu, j->split);
	int64_t t0, next, t;

	while (!atomic_load(&go))
		;
	t0 = next = now_ns();
	while (!atomic_load(&stop)) {
		if (j->gap_ns > 0) {
			while ((t = now_ns()) < next && !atomic_load(&stop))
				;
			next += (int64_t)j->gap_ns;
		}
		lock_add(p);
		j->count++;
	}
	j->ns = now_ns() - t0;
	return NULL;
}

static void **chase_base;

static void *chaser(struct job *j)
{
	void **p = chase_base;
	int64_t t0;
	int i;

	while (!atomic_load(&go))
		;
	t0 = now_ns();
	while (!atomic_load(&stop)) {
		for (i = 0; i < 1024; i++)
			p = *p;
		j->count += 1024;
	}
	j->ns = now_ns() - t0;
	__asm__ volatile("" : : "r"(p));
	return NULL;
}

/* One chase step between two RDTSCs: their readings in *t0 and *t1. */
static void timed_step(void ***pp, uint64_t *t0, uint64_t *t1)
{
	uint32_t lo0, hi0, lo1, hi1;
	void **p = *pp;

	__asm__ volatile("rdtsc\n\t"
			 "mov %%eax, %[lo0]\n\t"
			 "mov %%edx, %[hi0]\n\t"
			 "mov (%[p]), %[p]\n\t"
			 "rdtsc"
			 : [lo0] "=&r"(lo0), [hi0] "=&r"(hi0), [p] "+r"(p), "=a"(lo1), "=d"(hi1)
			 : : "memory");
	*pp = p;
	*t0 = ((uint64_t)hi0 << 32) | lo0;
	*t1 = ((uint64_t)hi1 << 32) | lo1;
}

static uint64_t rdtsc(void)
{
	uint32_t lo, hi;

	__asm__ volatile("rdtsc" : "=a"(lo), "=d"(hi));
	return ((uint64_t)hi << 32) | lo;
}

static uint64_t tsc_max_step;	/* timer: its longest step, in TSC ticks */
static uint64_t tsc_short_gaps;	/* timer: gaps between steps, 0.1-1 us */
static double tsc_per_ns;	/* timer: TSC ticks per ns over its run */

static void *timer(struct job *j)
{
	void **p = chase_base;
	uint64_t c0, t0, t1, last = 0;
	int64_t ns0;

	while (!atomic_load(&go))
		;
	ns0 = now_ns();
	c0 = rdtsc();
	while (!atomic_load(&stop)) {
		timed_step(&p, &t0, &t1);
		if (t1 - t0 > tsc_max_step)
			tsc_max_step = t1 - t0;
		/* ticks, not ns: the TSC runs at 1 GHz under the virtual clock */
		if (last && t0 - last > 100 && t0 - last <= 1000)
			tsc_short_gaps++;
		last = t1;
		j->count++;
	}
	j->ns = now_ns() - ns0;
	tsc_per_ns = j->ns > 0 ? (double)(rdtsc() - c0) / (double)j->ns : 0;
	__asm__ volatile("" : : "r"(p));
	return NULL;
}

static void *writer(struct job *j)
{
	void *p = operand(0, 1);
	int i;

	while (!atomic_load(&go))
		;
	while (!atomic_load(&stop)) {
		for (i = 0; i < SHARED_LINES; i++)
			((volatile uint32_t *)(j->write + i * LINE))[1]++;
		for (i = 0; i < locks; i++)
			lock_add(p);
		j->count++;
	}
	return NULL;
}

static void *reader(struct job *j)
{
	uint32_t sum = 0;
	int64_t t0;
	int i;

	while (!atomic_load(&go))
		;
	t0 = now_ns();
	while (!atomic_load(&stop)) {
		long k;

		for (i = 0; i < SHARED_LINES; i++)
			sum += ((volatile uint32_t *)(shared_buf + i * LINE))[0];
		for (k = 0; k < spin; k++)
			__asm__ volatile("" : "+r"(sum));
		j->count++;
	}
	j->ns = now_ns() - t0;
	__asm__ volatile("" : : "r"(sum));
	return NULL;
}

static void *sleeper(struct job *j)
{
	struct timespec nap = { 0, 50000 };
	uint32_t sum = 0;
	int64_t t0;
	int i;

	while (!atomic_load(&go))
		;
	while (!atomic_load(&stop)) {
		nanosleep(&nap, NULL);
		t0 = now_ns();
		for (i = 0; i < SHARED_LINES; i++)
			sum += ((volatile uint32_t *)(private_buf + i * LINE))[0];
		j->ns += now_ns() - t0;
		j->count++;
	}
	__asm__ volatile("" : : "r"(sum));
	return NULL;
}

static void (*slab)(void);

static void *coder(struct job *j)
{
	int64_t t0;

	while (!atomic_load(&go))
		;
	t0 = now_ns();
	while (!atomic_load(&stop)) {
		slab();
		j->count++;
	}
	j->ns = now_ns() - t0;
	return NULL;
}

static void *start(void *arg)
{
	struct job *j = arg;

	return j->fn(j);
}

static void spawn(pthread_t *t, struct job *j)
{
	pthread_attr_t a;
	cpu_set_t set;
	int err;

	CPU_ZERO(&set);
	CPU_SET(j->cpu, &set);
	pthread_attr_init(&a);
	pthread_attr_setaffinity_np(&a, sizeof(set), &set);
	err = pthread_create(t, &a, start, j);
	pthread_attr_destroy(&a);
	if (err) {
		fprintf(stderr, PROG ": cannot start a thread on CPU %d: %s\n", j->cpu, strerror(err));
		exit(1);
	}
}

/* Run a and b (b may be NULL) together for the duration. */
static void run(struct job *a, struct job *b)
{
	pthread_t ta, tb;
	struct timespec d = { (time_t)duration, (long)((duration - (time_t)duration) * 1e9) };

	atomic_store(&go, 0);
	atomic_store(&stop, 0);
	a->count = 0;
	if (b)
		b->count = 0;
	spawn(&ta, a);
	if (b)
		spawn(&tb, b);
	atomic_store(&go, 1);
	nanosleep(&d, NULL);
	atomic_store(&stop, 1);
	pthread_join(ta, NULL);
	if (b)
		pthread_join(tb, NULL);
}

static double per(const struct job *j)
{
	return j->count ? (double)j->ns / (double)j->count : -1;
}

/* Map CHASE_BYTES as one random cycle through every line: chase_base. */
static void chase_map(void)
{
	size_t n = CHASE_BYTES / LINE, i;
	unsigned char *m = mmap(NULL, CHASE_BYTES, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	size_t *order;
	uint64_t seed = 1;

	order = malloc(n * sizeof(*order));
	if (m == MAP_FAILED || !order) {
		fprintf(stderr, PROG ": cannot map the chase: %s\n", strerror(errno));
		exit(1);
	}
	for (i = 0; i < n; i++)
		order[i] = i;
	for (i = n - 1; i > 0; i--) {	/* Sattolo: one cycle through every line */
		size_t k, t;

		seed = seed * 6364136223846793005ull + 1442695040888963407ull;
		k = (size_t)(seed >> 33) % i;
		t = order[i], order[i] = order[k], order[k] = t;
	}
	for (i = 0; i < n; i++)
		*(void **)(m + order[i] * LINE) = m + order[(i + 1) % n] * LINE;
	chase_base = (void **)m;
	free(order);
}

static void chase_unmap(void)
{
	munmap(chase_base, CHASE_BYTES);
}

static void case_rate(void)
{
	struct job iss = { .cpu = 0, .fn = issuer, .gap_ns = gap_us * 1000 };
	struct job vic = { .cpu = 1, .fn = chaser };
	double split_step, aligned_step;

	chase_map();
	iss.split = 0;
	run(&iss, &vic);
	aligned_step = per(&vic);
	iss.split = 1;
	run(&iss, &vic);
	split_step = per(&vic);
	printf("rate.gap_us=%.0f\nrate.locks=%llu\nrate.aligned_ns_per_step=%.3f\nrate.split_ns_per_step=%.3f\n",
	       gap_us, (unsigned long long)iss.count, aligned_step, split_step);
	printf("rate.lost_ns_per_lock=%.0f\n",
	       iss.count ? (split_step - aligned_step) * (double)vic.count / (double)iss.count : -1);
	chase_unmap();
}

static void case_tsc(void)
{
	struct job iss = { .cpu = 1, .fn = issuer, .split = 1, .gap_ns = gap_us * 1000 };
	struct job vic = { .cpu = 0, .fn = timer };

	chase_map();
	run(&iss, &vic);
	printf("tsc.gap_us=%.0f\ntsc.locks=%llu\ntsc.steps=%llu\n", gap_us,
	       (unsigned long long)iss.count, (unsigned long long)vic.count);
	printf("tsc.max_step_ns=%.0f\n", tsc_per_ns > 0 ? (double)tsc_max_step / tsc_per_ns : -1);
	printf("tsc.short_gaps=%llu\n", (unsigned long long)tsc_short_gaps);
	chase_unmap();
}

static void case_pair(void)
{
	struct job a = { .cpu = 0, .fn = issuer, .split = 1 };
	struct job b = { .cpu = 1, .fn = issuer, .split = 1 };

	run(&a, NULL);
	printf("pair.alone_ns_per_op=%.0f\n", per(&a));
	run(&a, &b);
	printf("pair.ns_per_op_cpu0=%.0f\npair.ns_per_op_cpu1=%.0f\n", per(&a), per(&b));
}

static void case_coherent(void)
{
	struct job w = { .cpu = 0, .fn = writer, .write = private_buf };
	struct job r = { .cpu = 1, .fn = reader };
	unsigned long long priv_passes;
	double priv;

	run(&w, &r);
	priv = per(&r);
	priv_passes = (unsigned long long)r.count;
	w.write = shared_buf;
	run(&w, &r);
	printf("coherent.private_passes=%llu\ncoherent.shared_passes=%llu\n", priv_passes, (unsigned long long)r.count);
	printf("coherent.private_ns_per_pass=%.1f\ncoherent.shared_ns_per_pass=%.1f\n", priv, per(&r));
	printf("coherent.slowdown=%.2f\n", priv > 0 ? per(&r) / priv : -1);
}

static void case_code(void)
{
	size_t bytes = (size_t)code_kb * 1024;
	unsigned char *m = mmap(NULL, bytes + 1, PROT_READ | PROT_WRITE | PROT_EXEC,
				MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	struct job iss = { .cpu = 0, .fn = issuer };
	struct job vic = { .cpu = 1, .fn = coder };
	double aligned;

	if (m == MAP_FAILED) {
		fprintf(stderr, PROG ": cannot map %ld KiB of code: %s\n", code_kb, strerror(errno));
		exit(1);
	}
	memset(m, 0x90, bytes);	/* NOP */
	m[bytes] = 0xc3;	/* RET */
	slab = (void (*)(void))(uintptr_t)m;
	run(&iss, &vic);
	aligned = per(&vic);
	iss.split = 1;
	run(&iss, &vic);
	printf("code.kb=%ld\ncode.aligned_ns_per_pass=%.0f\ncode.split_ns_per_pass=%.0f\n",
	       code_kb, aligned, per(&vic));
	printf("code.slowdown=%.2f\n", aligned > 0 ? per(&vic) / aligned : -1);
	munmap(m, bytes + 1);
}

static void case_idle(void)
{
	struct job iss = { .cpu = 0, .fn = issuer };
	struct job vic = { .cpu = 1, .fn = sleeper };
	double aligned;

	run(&iss, &vic);
	aligned = per(&vic);
	vic.ns = 0;
	iss.split = 1;
	run(&iss, &vic);
	printf("idle.aligned_ns_per_pass=%.1f\nidle.split_ns_per_pass=%.1f\n", aligned, per(&vic));
	printf("idle.slowdown=%.2f\n", aligned > 0 ? per(&vic) / aligned : -1);
}

static void usage(FILE *f)
{
	fprintf(f, "usage: " PROG " [options] CASE...\n"
		"CASE: rate, pair, coherent, code, idle, tsc (see the source's header)\n"
		"  -d, --duration S   seconds per run, 0.001 to 10 (default 0.05)\n"
		"  -g, --gap-us N     rate, tsc: us between two locks, 1 to 100000 (default 100)\n"
		"  -l, --locks N      coherent: split locks per pass of CPU 0, 0 to 1000 (default 4)\n"
		"  -s, --spin N       coherent: CPU 1's spins between passes, 0 to 100000 (default 200)\n"
		"  -k, --code-kb N    code: KiB of NOPs, 1 to 65536 (default 256)\n"
		"  -h, --help         this text\n"
		"Exit status: 0 done, 1 failure, 2 bad input.\n");
}

/* A number from s in [lo, hi], or exit 2 naming the option and the range. */
static double number(const char *opt, const char *s, double lo, double hi)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(s, &end);
	if (errno || end == s || *end || !(v >= lo && v <= hi)) {
		fprintf(stderr, PROG ": %s '%s' is not a number from %g to %g\n", opt, s, lo, hi);
		exit(2);
	}
	return v;
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "duration", required_argument, NULL, 'd' },
		{ "gap-us", required_argument, NULL, 'g' },
		{ "locks", required_argument, NULL, 'l' },
		{ "spin", required_argument, NULL, 's' },
		{ "code-kb", required_argument, NULL, 'k' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int c, i;

	while ((c = getopt_long(argc, argv, "d:g:l:s:k:h", opts, NULL)) != -1) {
		switch (c) {
		case 'd': duration = number("--duration", optarg, 0.001, 10); break;
		case 'g': gap_us = number("--gap-us", optarg, 1, 100000); break;
		case 'l': locks = (int)number("--locks", optarg, 0, 1000); break;
		case 's': spin = (long)number("--spin", optarg, 0, 100000); break;
		case 'k': code_kb = (long)number("--code-kb", optarg, 1, 65536); break;
		case 'h': usage(stdout); return 0;
		default: usage(stderr); return 2;
		}
	}
	if (optind == argc) {
		fprintf(stderr, PROG ": no CASE given (allowed: rate, pair, coherent, code, idle, tsc)\n");
		return 2;
	}
	for (i = optind; i < argc; i++) {
		if (strcmp(argv[i], "rate") && strcmp(argv[i], "pair") &&
		    strcmp(argv[i], "coherent") && strcmp(argv[i], "code") &&
		    strcmp(argv[i], "idle") && strcmp(argv[i], "tsc")) {
			fprintf(stderr, PROG ": CASE '%s' is unknown (allowed: rate, pair, coherent, code, idle, tsc)\n", argv[i]);
			return 2;
		}
	}
	for (i = optind; i < argc; i++) {
		if (!strcmp(argv[i], "rate"))
			case_rate();
		else if (!strcmp(argv[i], "pair"))
			case_pair();
		else if (!strcmp(argv[i], "coherent"))
			case_coherent();
		else if (!strcmp(argv[i], "code"))
			case_code();
		else if (!strcmp(argv[i], "idle"))
			case_idle();
		else
			case_tsc();
		fflush(stdout);
	}
	return 0;
}
