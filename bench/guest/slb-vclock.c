// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * slb-vclock: guest checks of the virtual clock (patch/qemu 0004-0005) as a
 * program sees it, through the TSC of the vCPU it runs on.
 *
 *   slb-vclock pingpong [--rounds N] [--settle-us N] [--json] CPU_A CPU_B
 *     Two threads, one pinned to each CPU, hand a turn back and forth:
 *     the sender spins a pseudo-random while, reads its TSC, publishes it
 *     and wakes the receiver (futex), which sleeps (its vCPU halts) until
 *     then and reads its own TSC on waking. Causality: the receiver's TSC
 *     is never below the sender's. Counts negative differences each way.
 *     With --settle-us, CPU_A first waits N to 1.5 N us (TSC at 1 GHz,
 *     as under icount) so that CPU_B is asleep by then even as seen from
 *     another vCPU a lock-step quantum away: what it sees is then a wake
 *     from a halt, not a store to a running vCPU (which lock-step may show
 *     up to a quantum early; give N > 2 quanta).
 *
 *   slb-vclock monotonic [--seconds S] [--json] CPU...
 *     One thread per CPU: spin a pseudo-random while, note the TSC, sleep
 *     a pseudo-random 1-500 us (timers armed anywhere in a round), read
 *     the TSC again: a vCPU's clock never goes back. Counts steps back.
 *
 *   slb-vclock lockcost [--ops N] [--json] CPU
 *     The issuer's TSC ticks per split LOCK ADD, over a loop of N, each on
 *     its own page: first touches of fresh pages (each access page-faults
 *     and is restarted), the same lines again (warm), and aligned ones.
 *     With a bus-lock cost C both split loops pay C once per lock: fresh -
 *     warm is the page fault, not a second C.
 *
 *   slb-vclock rtt [--rounds N] [--settle-us N] [--json] CPU_A CPU_B
 *     A bus issuer asks a sleeper and waits for the answer: CPU_A takes a
 *     split lock (with a bus-lock cost it is then a bus issuer), wakes the
 *     thread asleep on CPU_B (futex) and spins on PAUSE until it answers;
 *     the TSC ticks from the wake to the answer, their median and largest.
 *     CPU_A waits N to 1.5 N us before each round (default 2200: more than
 *     two 1 ms quanta), so that CPU_B is asleep. Under lock-step the
 *     issuer stops soon after it wakes the sleeper (patch/qemu 0011): the
 *     answer comes in microseconds, not at the round's end.
 *
 *   slb-vclock spin [--pauses N] [--json] CPU
 *     A spin-wait as a lock waiter's: N PAUSE instructions in a loop, and
 *     the TSC ticks they took. Under lock-step a spinning vCPU runs its
 *     slice on (patch/qemu 0010-0013): the emulator's rounds show it
 *     (trace event rr_lockstep_round), the ticks do not change.
 *
 * Output: one line of key=value pairs (or a JSON object with --json).
 * Exit status: 0 measured and no violation, 1 a violation (negative
 * difference, step back) or a failure, 2 usage.
 */
#include "../lib/num.h"

#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <linux/futex.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#define PROG "slb-vclock"
#define MAX_CPUS 8

static int json;

static inline uint64_t tsc(void)
{
	uint32_t lo, hi;

	__asm__ volatile("lfence; rdtsc; lfence" : "=a"(lo), "=d"(hi) : : "memory");
	return ((uint64_t)hi << 32) | lo;
}

/* xorshift64: the same pseudo-random whiles in every run. */
static uint64_t next_rand(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

static void spin(uint64_t iterations)
{
	for (volatile uint64_t i = 0; i < iterations; i++)
		;
}

static int pin(int cpu)
{
	cpu_set_t one;

	CPU_ZERO(&one);
	CPU_SET(cpu, &one);
	return sched_setaffinity(0, sizeof(one), &one);
}

static long futex(atomic_int *addr, int op, int val)
{
	return syscall(SYS_futex, addr, op, val, NULL, NULL, 0);
}

/* ---- pingpong ---- */

static atomic_int turn;			/* whose turn: 0 or 1; 2 = stop */
static _Atomic uint64_t sent_tsc;	/* the sender's TSC at the hand-over */
static long pp_rounds = 2000;
static uint64_t pp_settle_ns;

struct side {
	int cpu, err;
	long received, negative;
	int64_t min_delta;
	pthread_t tid;
};

static struct side sides[2];

static void *pingpong_side(void *arg)
{
	struct side *me = arg;
	int id = (int)(me - sides);
	uint64_t seed = 0x9e3779b97f4a7c15ull + (uint64_t)id;

	if (pin(me->cpu)) {
		me->err = errno;
		atomic_store(&turn, 2);
		futex(&turn, FUTEX_WAKE, 1);
		return NULL;
	}
	for (int first = (id == 0);; first = 0) {
		int t;

		while ((t = atomic_load(&turn)) != id && t != 2)
			futex(&turn, FUTEX_WAIT, t);
		if (t == 2)
			return NULL;
		if (!first) {
			int64_t d = (int64_t)(tsc() - atomic_load(&sent_tsc));

			me->received++;
			if (d < 0)
				me->negative++;
			if (me->received == 1 || d < me->min_delta)
				me->min_delta = d;
		}
		if (me->received >= pp_rounds) {
			atomic_store(&turn, 2);
			futex(&turn, FUTEX_WAKE, 1);
			return NULL;
		}
		spin(next_rand(&seed) % 20000);
		if (id == 0 && pp_settle_ns) {
			uint64_t until = tsc() + pp_settle_ns + next_rand(&seed) % (pp_settle_ns / 2 + 1);

			while (tsc() < until)
				;
		}
		atomic_store(&sent_tsc, tsc());
		atomic_store(&turn, !id);
		futex(&turn, FUTEX_WAKE, 1);
	}
}

static int run_pingpong(int cpu_a, int cpu_b)
{
	long negative;

	sides[0].cpu = cpu_a;
	sides[1].cpu = cpu_b;
	atomic_store(&turn, 0);
	for (int i = 0; i < 2; i++)
		if (pthread_create(&sides[i].tid, NULL, pingpong_side, &sides[i])) {
			fprintf(stderr, PROG ": cannot start a thread\n");
			return 1;
		}
	for (int i = 0; i < 2; i++)
		pthread_join(sides[i].tid, NULL);
	for (int i = 0; i < 2; i++)
		if (sides[i].err) {
			fprintf(stderr, PROG ": cannot run on CPU %d: %s\n", sides[i].cpu,
				strerror(sides[i].err));
			return 1;
		}
	negative = sides[0].negative + sides[1].negative;
	if (json)
		printf("{\"mode\":\"pingpong\",\"cpus\":[%d,%d],\"received\":[%ld,%ld],"
		       "\"negative\":[%ld,%ld],\"min_delta\":[%" PRId64 ",%" PRId64 "]}\n",
		       cpu_a, cpu_b, sides[0].received, sides[1].received, sides[0].negative,
		       sides[1].negative, sides[0].min_delta, sides[1].min_delta);
	else
		printf("mode=pingpong received=%ld,%ld negative=%ld,%ld min_delta=%" PRId64
		       ",%" PRId64 "\n",
		       sides[0].received, sides[1].received, sides[0].negative, sides[1].negative,
		       sides[0].min_delta, sides[1].min_delta);
	return negative ? 1 : 0;
}

/* ---- monotonic ---- */

struct walker {
	int cpu, err;
	long sleeps, back;
	int64_t worst;
	pthread_t tid;
};

static struct walker walkers[MAX_CPUS];
static double mono_seconds = 3;

static void *walk(void *arg)
{
	struct walker *w = arg;
	uint64_t seed = 0x2545f4914f6cdd1dull * (uint64_t)(w->cpu + 1);
	struct timespec start, now;

	if (pin(w->cpu)) {
		w->err = errno;
		return NULL;
	}
	clock_gettime(CLOCK_MONOTONIC, &start);
	do {
		struct timespec nap = { 0, (long)(1000 + next_rand(&seed) % 499000) };
		uint64_t before, after;

		spin(next_rand(&seed) % 200000);
		before = tsc();
		nanosleep(&nap, NULL);
		after = tsc();
		w->sleeps++;
		if (after < before) {
			w->back++;
			if ((int64_t)(after - before) < w->worst)
				w->worst = (int64_t)(after - before);
		}
		clock_gettime(CLOCK_MONOTONIC, &now);
	} while ((double)(now.tv_sec - start.tv_sec) + (now.tv_nsec - start.tv_nsec) / 1e9 <
		 mono_seconds);
	return NULL;
}

static int run_monotonic(int n, const int *cpus)
{
	long back = 0;

	for (int i = 0; i < n; i++) {
		walkers[i].cpu = cpus[i];
		if (pthread_create(&walkers[i].tid, NULL, walk, &walkers[i])) {
			fprintf(stderr, PROG ": cannot start a thread\n");
			return 1;
		}
	}
	for (int i = 0; i < n; i++)
		pthread_join(walkers[i].tid, NULL);
	printf(json ? "{\"mode\":\"monotonic\",\"cpus\":[" : "mode=monotonic");
	for (int i = 0; i < n; i++) {
		if (walkers[i].err) {
			fprintf(stderr, PROG ": cannot run on CPU %d: %s\n", walkers[i].cpu,
				strerror(walkers[i].err));
			return 1;
		}
		back += walkers[i].back;
		if (json)
			printf("%s{\"cpu\":%d,\"sleeps\":%ld,\"back\":%ld,\"worst\":%" PRId64 "}",
			       i ? "," : "", walkers[i].cpu, walkers[i].sleeps, walkers[i].back,
			       walkers[i].worst);
		else
			printf(" cpu%d_sleeps=%ld cpu%d_back=%ld cpu%d_worst=%" PRId64, walkers[i].cpu,
			       walkers[i].sleeps, walkers[i].cpu, walkers[i].back, walkers[i].cpu,
			       walkers[i].worst);
	}
	printf(json ? "],\"back\":%ld}\n" : " back=%ld\n", back);
	return back ? 1 : 0;
}

/* ---- lockcost ---- */

static long lc_ops = 200;

static inline void lock_add(volatile uint32_t *p)
{
	__asm__ volatile("lock addl $1, %0" : "+m"(*p) : : "memory");
}

/* TSC ticks per LOCK ADD at offset off of each page of map, over a loop:
 * a charge that does not fit in the issuer's slice is paid when its next
 * translation block starts, inside the loop, not after each instruction. */
static double loop_ticks(unsigned char *map, long page, long off)
{
	uint64_t t0 = tsc();

	for (long i = 0; i < lc_ops; i++)
		lock_add((volatile uint32_t *)(map + i * page + off));
	return (double)(tsc() - t0) / lc_ops;
}

static int run_lockcost(int cpu)
{
	long page = sysconf(_SC_PAGESIZE);
	double fresh, warm, none;
	unsigned char *map;

	if (pin(cpu)) {
		fprintf(stderr, PROG ": cannot run on CPU %d: %s\n", cpu, strerror(errno));
		return 1;
	}
	map = mmap(NULL, (size_t)(lc_ops * page), PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (map == MAP_FAILED) {
		fprintf(stderr, PROG ": mmap: %s\n", strerror(errno));
		return 1;
	}
	/* bytes 62-65 of each page cross its first line boundary */
	fresh = loop_ticks(map, page, 62);	/* first touch: #PF, then again */
	warm = loop_ticks(map, page, 62);
	none = loop_ticks(map, page, 128);	/* aligned: no bus lock */
	munmap(map, (size_t)(lc_ops * page));
	if (json)
		printf("{\"mode\":\"lockcost\",\"cpu\":%d,\"ops\":%ld,\"fresh_ticks\":%.1f,"
		       "\"warm_ticks\":%.1f,\"aligned_ticks\":%.1f}\n",
		       cpu, lc_ops, fresh, warm, none);
	else
		printf("mode=lockcost ops=%ld fresh_ticks=%.1f warm_ticks=%.1f aligned_ticks=%.1f\n",
		       lc_ops, fresh, warm, none);
	return 0;
}

/* ---- rtt ---- */

static atomic_int rtt_flag;		/* 0 idle, 1 asked, 2 answered, 3 stop */
static long rtt_rounds = 200;
static uint64_t rtt_settle_ns = 2200000;

struct rtt_side {
	int cpu, err;
};

static void *rtt_answer(void *arg)
{
	struct rtt_side *me = arg;
	int f;

	if (pin(me->cpu)) {
		me->err = errno;
		return NULL;
	}
	for (;;) {
		while ((f = atomic_load(&rtt_flag)) != 1 && f != 3)
			futex(&rtt_flag, FUTEX_WAIT, f);
		if (f == 3)
			return NULL;
		atomic_store(&rtt_flag, 2);
	}
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

static int run_rtt(int cpu_a, int cpu_b)
{
	static uint32_t split[32] __attribute__((aligned(64)));
	struct rtt_side b = { .cpu = cpu_b };
	uint64_t seed = 0x9e3779b97f4a7c15ull, *ticks;
	pthread_t tid;

	ticks = calloc((size_t)rtt_rounds, sizeof(*ticks));
	if (!ticks || pin(cpu_a)) {
		fprintf(stderr, PROG ": cannot run on CPU %d: %s\n", cpu_a, strerror(errno));
		return 1;
	}
	if (pthread_create(&tid, NULL, rtt_answer, &b)) {
		fprintf(stderr, PROG ": cannot start a thread\n");
		return 1;
	}
	for (long i = 0; i < rtt_rounds && !b.err; i++) {
		uint64_t until = tsc() + rtt_settle_ns + next_rand(&seed) % (rtt_settle_ns / 2 + 1), t0;

		while (tsc() < until)
			;
		/* bytes 62-65 of a 64-byte aligned block cross a line */
		lock_add((volatile uint32_t *)((unsigned char *)split + 62));
		t0 = tsc();
		atomic_store(&rtt_flag, 1);
		futex(&rtt_flag, FUTEX_WAKE, 1);
		while (atomic_load(&rtt_flag) != 2)
			__asm__ volatile("pause" : : : "memory");
		ticks[i] = tsc() - t0;
		atomic_store(&rtt_flag, 0);
	}
	atomic_store(&rtt_flag, 3);
	futex(&rtt_flag, FUTEX_WAKE, 1);
	pthread_join(tid, NULL);
	if (b.err) {
		fprintf(stderr, PROG ": cannot run on CPU %d: %s\n", cpu_b, strerror(b.err));
		return 1;
	}
	qsort(ticks, (size_t)rtt_rounds, sizeof(*ticks), cmp_u64);
	if (json)
		printf("{\"mode\":\"rtt\",\"cpus\":[%d,%d],\"rounds\":%ld,\"median_ticks\":%" PRIu64
		       ",\"max_ticks\":%" PRIu64 "}\n", cpu_a, cpu_b, rtt_rounds, ticks[rtt_rounds / 2],
		       ticks[rtt_rounds - 1]);
	else
		printf("mode=rtt rounds=%ld median_ticks=%" PRIu64 " max_ticks=%" PRIu64 "\n",
		       rtt_rounds, ticks[rtt_rounds / 2], ticks[rtt_rounds - 1]);
	free(ticks);
	return 0;
}

/* ---- spin ---- */

static long spin_pauses = 1000000;

static int run_spin(int cpu)
{
	uint64_t t0, ticks;

	if (pin(cpu)) {
		fprintf(stderr, PROG ": cannot run on CPU %d: %s\n", cpu, strerror(errno));
		return 1;
	}
	t0 = tsc();
	for (long i = 0; i < spin_pauses; i++)
		__asm__ volatile("pause" : : : "memory");
	ticks = tsc() - t0;
	if (json)
		printf("{\"mode\":\"spin\",\"cpu\":%d,\"pauses\":%ld,\"ticks\":%" PRIu64
		       ",\"ticks_per_pause\":%.2f}\n", cpu, spin_pauses, ticks, (double)ticks / spin_pauses);
	else
		printf("mode=spin pauses=%ld ticks=%" PRIu64 " ticks_per_pause=%.2f\n",
		       spin_pauses, ticks, (double)ticks / spin_pauses);
	return 0;
}

/* ---- command line ---- */

static void usage(FILE *f)
{
	fprintf(f, "Usage: " PROG " pingpong [--rounds N] [--settle-us N] [--json] CPU_A CPU_B\n"
		   "       " PROG " monotonic [--seconds S] [--json] CPU...\n"
		   "       " PROG " lockcost [--ops N] [--json] CPU\n"
		   "       " PROG " rtt [--rounds N] [--settle-us N] [--json] CPU_A CPU_B\n"
		   "       " PROG " spin [--pauses N] [--json] CPU\n"
		   "Guest checks of the virtual clock through the TSC (see the file header).\n");
}

static int parse_cpu(const char *text, int *cpu)
{
	uint64_t v;

	if (num_parse_u64(PROG, "CPU", text, 0, MAX_CPUS - 1, &v))
		return -1;
	*cpu = (int)v;
	return 0;
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "rounds", required_argument, NULL, 'r' },
		{ "seconds", required_argument, NULL, 's' },
		{ "settle-us", required_argument, NULL, 'S' },
		{ "ops", required_argument, NULL, 'o' },
		{ "pauses", required_argument, NULL, 'p' },
		{ "json", no_argument, NULL, 'j' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int cpus[MAX_CPUS], ncpus, c;
	const char *mode;
	uint64_t v;
	double d;

	if (argc < 2 || !strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
		usage(argc < 2 ? stderr : stdout);
		return argc < 2 ? 2 : 0;
	}
	mode = argv[1];
	argv++;
	argc--;
	while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (c) {
		case 'r':
			if (num_parse_u64(PROG, "--rounds", optarg, 1, 10000000, &v))
				return 2;
			pp_rounds = rtt_rounds = (long)v;
			break;
		case 'S':
			if (num_parse_u64(PROG, "--settle-us", optarg, 0, 100000, &v))
				return 2;
			pp_settle_ns = rtt_settle_ns = v * 1000;
			break;
		case 's':
			if (num_parse(PROG, "--seconds", optarg, 0.1, 3600, 0, &d))
				return 2;
			mono_seconds = d;
			break;
		case 'o':
			if (num_parse_u64(PROG, "--ops", optarg, 1, 100000, &v))
				return 2;
			lc_ops = (long)v;
			break;
		case 'p':
			if (num_parse_u64(PROG, "--pauses", optarg, 1, 1000000000, &v))
				return 2;
			spin_pauses = (long)v;
			break;
		case 'j':
			json = 1;
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			usage(stderr);
			return 2;
		}
	}
	ncpus = argc - optind;
	if (ncpus > MAX_CPUS) {
		fprintf(stderr, PROG ": at most %d CPUs\n", MAX_CPUS);
		return 2;
	}
	for (int i = 0; i < ncpus; i++)
		if (parse_cpu(argv[optind + i], &cpus[i]))
			return 2;
	if (!strcmp(mode, "pingpong") && ncpus == 2)
		return run_pingpong(cpus[0], cpus[1]);
	if (!strcmp(mode, "monotonic") && ncpus >= 1)
		return run_monotonic(ncpus, cpus);
	if (!strcmp(mode, "lockcost") && ncpus == 1)
		return run_lockcost(cpus[0]);
	if (!strcmp(mode, "spin") && ncpus == 1)
		return run_spin(cpus[0]);
	if (!strcmp(mode, "rtt") && ncpus == 2)
		return run_rtt(cpus[0], cpus[1]);
	fprintf(stderr, PROG ": mode '%s' with %d CPUs: use pingpong CPU_A CPU_B, "
			"monotonic CPU..., lockcost CPU, spin CPU or rtt CPU_A CPU_B\n", mode, ncpus);
	return 2;
}
