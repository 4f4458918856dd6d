// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * slb-load: the study's load generator. Threads pinned to chosen CPUs
 * issue a LOCKed operation in a loop on an operand that crosses a cache
 * line (split: a bus lock on hardware, the emulated one in the TCG guest),
 * is aligned (the control), or is misaligned inside one line (inline).
 * Rate, duty cycle and duration are bounded. Progress is published to a
 * stats file that outlives the process, so a run killed by SIGBUS (what
 * split lock detection does to it) still tells how far it got.
 *
 * With --mark FILE (a tracefs trace_marker) each thread marks where its
 * locking loop runs: "slb-load: MODE on" as it starts and every 100 ms
 * while it goes on, "slb-load: MODE off" before a duty cycle's pause and
 * at its end. A marker per lock would cost a system call per lock and
 * change the load; a trace event raised in an interrupt already names
 * the task it interrupted, so these few markers suffice to tell that the
 * task was inside its split-lock loop (bench/guest/slb-trace.c).
 *
 * Exit status: 0 done, 1 failure, 2 usage error, 3 SIGBUS caught with
 * --catch-sigbus. Killed by SIGBUS otherwise, as detection intends.
 *
 * On a real CPU (make bench TARGET=native or ssh) each split lock
 * bus-locks the whole, possibly shared, machine: bound them with --rate.
 */
#include "../lib/lockop.h"
#include "../lib/num.h"
#include "../lib/splitaddr.h"

#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <math.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#define MAX_THREADS 64
#define MAX_DURATION_S 3600.0
#define STATS_MAGIC 0x534c424c4f414431ull /* "SLBLOAD1" */

static const char *const mode_names[] = { "split", "aligned", "inline", "none" };

/* Shared with the file given by --stats; survives the process. */
struct stats {
	uint64_t magic;
	int64_t start_ns;		/* CLOCK_MONOTONIC */
	_Atomic int64_t last_ns;	/* last progress update */
	_Atomic uint64_t ops;		/* operations completed, all threads */
	_Atomic int32_t finished;	/* 1 once the run ended normally */
	int32_t threads;
	char mode[16], op[16];
	int32_t size;
	double rate, duration_s;
};

struct config {
	enum slb_mode mode;
	enum slb_op op;
	int size, threads, ncpus, json, catch_sigbus, fifo;
	int cpus[MAX_THREADS];
	double rate, duration_s, on_ms, off_ms;
	uint64_t max_ops;
	const char *stats_path;
	int mark_fd;		/* trace_marker, or -1 */
};

#define MARK_EVERY_NS 100000000

static struct stats *stats;
static struct config cfg;

/* "slb-load: MODE on|off" into the trace, when marking. */
static void mark(int on)
{
	char msg[48];
	int n;

	if (cfg.mark_fd < 0)
		return;
	n = snprintf(msg, sizeof(msg), "slb-load: %s %s\n", mode_names[cfg.mode], on ? "on" : "off");
	if (write(cfg.mark_fd, msg, (size_t)n) < 0)
		return;
}

static unsigned char line_bufs[MAX_THREADS][4 * SLB_LINE] __attribute__((aligned(SLB_LINE)));

static int64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static void sleep_until(int64_t t)
{
	struct timespec ts = { .tv_sec = t / 1000000000, .tv_nsec = t % 1000000000 };

	while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR)
		;
}

/* Is t inside an "on" period of the duty cycle? Else: when does the next start? */
static int64_t duty_next_on(int64_t t)
{
	int64_t on = (int64_t)(cfg.on_ms * 1e6), period = on + (int64_t)(cfg.off_ms * 1e6);
	int64_t phase;

	if (cfg.off_ms <= 0)
		return t;
	phase = (t - stats->start_ns) % period;
	return phase < on ? t : t + (period - phase);
}

static void *worker(void *arg)
{
	int idx = (int)(intptr_t)arg;
	void *p = slb_operand(line_bufs[idx] + SLB_LINE, cfg.mode, (size_t)cfg.size);
	int64_t end = stats->start_ns + (int64_t)(cfg.duration_s * 1e9);
	int64_t gap = cfg.rate > 0 ? (int64_t)(1e9 / cfg.rate) : 0, next = stats->start_ns;
	uint64_t mine = 0, unpublished = 0;
	int64_t marked = 0;

	if (cfg.ncpus) {
		cpu_set_t set;

		CPU_ZERO(&set);
		CPU_SET(cfg.cpus[idx % cfg.ncpus], &set);
		if (pthread_setaffinity_np(pthread_self(), sizeof(set), &set)) {
			fprintf(stderr, "slb-load: cannot pin thread %d to CPU %d\n", idx, cfg.cpus[idx % cfg.ncpus]);
			exit(1);
		}
	}
	for (;;) {
		int64_t t = now_ns();
		/* Flat out: check the clock once per batch of 64 ops. */
		int batch = (gap || cfg.off_ms > 0) ? 1 : 64;

		if (t >= end || (cfg.max_ops && mine >= cfg.max_ops))
			break;
		if (cfg.off_ms > 0) {
			int64_t on = duty_next_on(t);

			if (on != t) {
				if (marked) {
					mark(0);
					marked = 0;
				}
				sleep_until(on < end ? on : end);
				next = on;
				continue;
			}
		}
		if (gap) {
			/* Keep the rate; do not burst to catch up after a stall. */
			if (next < t - gap)
				next = t;
			if (next > t)
				sleep_until(next);
			next += gap;
		}
		if (cfg.mark_fd >= 0 && t - marked >= MARK_EVERY_NS) {
			mark(1);
			marked = t;
		}
		if (cfg.max_ops && (uint64_t)batch > cfg.max_ops - mine)
			batch = (int)(cfg.max_ops - mine);
		if (cfg.mode != SLB_MODE_NONE)
			for (int k = 0; k < batch; k++)
				slb_lock_op(cfg.op, cfg.size, p);
		else if (!gap)
			sched_yield();
		mine += (uint64_t)batch;
		unpublished += (uint64_t)batch;
		/* Publish often enough that a SIGBUS loses at most 63 ops. */
		if (unpublished >= 64 || gap) {
			atomic_fetch_add_explicit(&stats->ops, unpublished, memory_order_relaxed);
			atomic_store_explicit(&stats->last_ns, now_ns(), memory_order_relaxed);
			unpublished = 0;
		}
	}
	atomic_fetch_add_explicit(&stats->ops, unpublished, memory_order_relaxed);
	atomic_store_explicit(&stats->last_ns, now_ns(), memory_order_relaxed);
	if (marked)
		mark(0);
	return NULL;
}

static void on_sigbus(int sig, siginfo_t *si, void *uc)
{
	char msg[128];
	int n;

	(void)sig;
	(void)uc;
	n = snprintf(msg, sizeof(msg), "slb-load: SIGBUS (si_code %d) at address %p after %llu ops\n",
		     si->si_code, si->si_addr, (unsigned long long)atomic_load(&stats->ops));
	if (write(2, msg, (size_t)n) < 0)
		_exit(3);
	_exit(3);
}

static struct stats *map_stats(const char *path)
{
	struct stats *s;
	int fd;

	if (!path) {
		s = mmap(NULL, sizeof(*s), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
		return s == MAP_FAILED ? NULL : s;
	}
	fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0644);
	if (fd < 0 || ftruncate(fd, sizeof(*s))) {
		fprintf(stderr, "slb-load: cannot create stats file %s: %s\n", path, strerror(errno));
		return NULL;
	}
	s = mmap(NULL, sizeof(*s), PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	close(fd);
	return s == MAP_FAILED ? NULL : s;
}

/* JSON describing the stats; fate is derived by whoever knows how it ended. */
static void print_stats(const struct stats *s, int json, int64_t now)
{
	uint64_t ops = atomic_load(&s->ops);
	double secs = (double)(atomic_load(&s->last_ns) - s->start_ns) / 1e9;
	double ops_s = secs > 0 ? (double)ops / secs : 0;

	if (json) {
		printf("{\"mode\": \"%s\", \"op\": \"%s\", \"size\": %d, \"threads\": %d, "
		       "\"rate\": %.0f, \"duration_s\": %.3f, \"ops\": %llu, \"elapsed_s\": %.6f, "
		       "\"ops_per_s\": %.1f, \"ns_per_op\": %.1f, \"finished\": %s, "
		       "\"start_ns\": %lld, \"last_ns\": %lld, \"reported_after_ms\": %.3f}\n",
		       s->mode, s->op, s->size, s->threads, s->rate, s->duration_s,
		       (unsigned long long)ops, secs, ops_s, ops ? secs * 1e9 * s->threads / (double)ops : 0,
		       atomic_load(&s->finished) ? "true" : "false", (long long)s->start_ns,
		       (long long)atomic_load(&s->last_ns), (double)(now - s->start_ns) / 1e6);
	} else {
		printf("%s %s size %d x %d threads: %llu ops in %.3f s (%.0f ops/s, %.1f ns/op)%s\n",
		       s->mode, s->op, s->size, s->threads, (unsigned long long)ops, secs, ops_s,
		       ops ? secs * 1e9 * s->threads / (double)ops : 0,
		       atomic_load(&s->finished) ? "" : " [did not finish]");
	}
}

static int report(const char *path, int json)
{
	struct stats s;
	int fd = open(path, O_RDONLY);

	if (fd < 0 || read(fd, &s, sizeof(s)) != (ssize_t)sizeof(s) || s.magic != STATS_MAGIC) {
		fprintf(stderr, "slb-load: %s is not a slb-load stats file\n", path);
		if (fd >= 0)
			close(fd);
		return 1;
	}
	close(fd);
	print_stats(&s, json, now_ns());
	return 0;
}

/* ns per op for split, aligned and inline, side by side, on this thread. */
static int calibrate(uint64_t n, int json)
{
	static const enum slb_mode modes[] = { SLB_MODE_SPLIT, SLB_MODE_ALIGNED, SLB_MODE_INLINE };
	double ns[3];

	for (int m = 0; m < 3; m++) {
		void *p = slb_operand(line_bufs[0] + SLB_LINE, modes[m], (size_t)cfg.size);
		int64_t t0 = now_ns();

		for (uint64_t i = 0; i < n; i++)
			slb_lock_op(cfg.op, cfg.size, p);
		ns[m] = (double)(now_ns() - t0) / (double)n;
	}
	if (json)
		printf("{\"op\": \"%s\", \"size\": %d, \"ops_each\": %llu, \"ns_per_op\": "
		       "{\"split\": %.1f, \"aligned\": %.1f, \"inline\": %.1f}, "
		       "\"split_over_aligned\": %.2f}\n", slb_op_name(cfg.op), cfg.size,
		       (unsigned long long)n, ns[0], ns[1], ns[2], ns[1] > 0 ? ns[0] / ns[1] : 0);
	else
		printf("lock %s size %d, %llu ops each: split %.1f ns, aligned %.1f ns, inline %.1f ns "
		       "(split/aligned %.2fx)\n", slb_op_name(cfg.op), cfg.size, (unsigned long long)n,
		       ns[0], ns[1], ns[2], ns[1] > 0 ? ns[0] / ns[1] : 0);
	return 0;
}

static void usage(FILE *out)
{
	fprintf(out,
		"Usage: slb-load [options]\n"
		"Issue LOCKed operations on a split, aligned or inline operand.\n\n"
		"  -m, --mode MODE       split | aligned | inline | none (default split)\n"
		"  -o, --op OP           add | xadd | xchg | cmpxchg | inc | bts (default add)\n"
		"  -s, --size N          operand size, 4 or 8 (default 4)\n"
		"  -t, --threads N       threads, 1 to %d (default 1)\n"
		"  -c, --cpus LIST       pin threads round robin to these CPUs (e.g. 0 or 0,2)\n"
		"  -r, --rate OPS        ops per second per thread, 0 = flat out (default 0)\n"
		"      --fifo PRIO       run as SCHED_FIFO at PRIO, 1 to 99 (an RT task; default\n"
		"                        SCHED_OTHER)\n"
		"      --on MS --off MS  duty cycle: bursts of MS on, MS off (default always on)\n"
		"  -d, --duration S      run time in seconds, at most %.0f (default 10)\n"
		"  -n, --ops N           stop each thread after N ops (default no limit)\n"
		"      --stats FILE      publish progress to FILE (readable after a SIGBUS)\n"
		"      --mark FILE       mark each thread's locking loop in FILE, a tracefs\n"
		"                        trace_marker (on every 100 ms, off at a pause and the end)\n"
		"      --report FILE     print the stats in FILE and exit\n"
		"      --calibrate N     ns/op of split, aligned and inline, N ops each\n"
		"      --catch-sigbus    report a SIGBUS and exit 3 instead of dying\n"
		"      --print-addr      print the operand address of each mode and exit\n"
		"  -j, --json            JSON output\n"
		"  -h, --help            this text\n\n"
		"Exit status: 0 done, 1 failure, 2 usage error, 3 SIGBUS caught.\n"
		"On hardware each split lock is a bus lock of the whole machine: bound them with --rate.\n",
		MAX_THREADS, MAX_DURATION_S);
}

static int parse_double(const char *name, const char *text, double lo, double hi, double *v)
{
	return num_parse("slb-load", name, text, lo, hi, 0, v);
}

static int parse_cpus(const char *s)
{
	char *copy = strdup(s), *tok, *save = NULL;

	cfg.ncpus = 0;
	for (tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		char *end;
		long lo = strtol(tok, &end, 10), hi = lo;

		if (*end == '-')
			hi = strtol(end + 1, &end, 10);
		if (*end || end == tok || lo < 0 || hi < lo || hi >= CPU_SETSIZE) {
			fprintf(stderr, "slb-load: --cpus '%s': bad CPU list (e.g. 0 or 0,2 or 1-3)\n", s);
			free(copy);
			return -1;
		}
		for (long c = lo; c <= hi && cfg.ncpus < MAX_THREADS; c++)
			cfg.cpus[cfg.ncpus++] = (int)c;
	}
	free(copy);
	return 0;
}

static int lookup(const char *name, const char *s, const char *const *names, int n)
{
	for (int i = 0; i < n; i++)
		if (!strcmp(s, names[i]))
			return i;
	fprintf(stderr, "slb-load: %s '%s' is not one of:", name, s);
	for (int i = 0; i < n; i++)
		fprintf(stderr, " %s", names[i]);
	fprintf(stderr, "\n");
	return -1;
}

int main(int argc, char **argv)
{
	enum { OPT_ON = 256, OPT_OFF, OPT_STATS, OPT_REPORT, OPT_CALIBRATE, OPT_CATCH, OPT_ADDR, OPT_FIFO, OPT_MARK };
	static const struct option opts[] = {
		{ "mode", required_argument, NULL, 'm' },
		{ "op", required_argument, NULL, 'o' },
		{ "size", required_argument, NULL, 's' },
		{ "threads", required_argument, NULL, 't' },
		{ "cpus", required_argument, NULL, 'c' },
		{ "rate", required_argument, NULL, 'r' },
		{ "on", required_argument, NULL, OPT_ON },
		{ "off", required_argument, NULL, OPT_OFF },
		{ "duration", required_argument, NULL, 'd' },
		{ "ops", required_argument, NULL, 'n' },
		{ "stats", required_argument, NULL, OPT_STATS },
		{ "report", required_argument, NULL, OPT_REPORT },
		{ "calibrate", required_argument, NULL, OPT_CALIBRATE },
		{ "catch-sigbus", no_argument, NULL, OPT_CATCH },
		{ "print-addr", no_argument, NULL, OPT_ADDR },
		{ "fifo", required_argument, NULL, OPT_FIFO },
		{ "mark", required_argument, NULL, OPT_MARK },
		{ "json", no_argument, NULL, 'j' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *report_path = NULL;
	double d, calib = 0;
	int c, i, print_addr = 0;
	pthread_t tids[MAX_THREADS];

	cfg = (struct config){ .mode = SLB_MODE_SPLIT, .op = SLB_OP_ADD, .size = 4, .threads = 1,
			       .duration_s = 10, .mark_fd = -1 };
	while ((c = getopt_long(argc, argv, "m:o:s:t:c:r:d:n:jh", opts, NULL)) != -1) {
		switch (c) {
		case 'm':
			if ((i = lookup("--mode", optarg, mode_names, 4)) < 0)
				return 2;
			cfg.mode = (enum slb_mode)i;
			break;
		case 'o':
			if ((i = slb_op_lookup(optarg, SLB_OP_SIZED)) < 0) {
				fprintf(stderr, "slb-load: --op '%s' is not one of:", optarg);
				for (i = 0; i < SLB_OP_SIZED; i++)
					fprintf(stderr, " %s", slb_op_name((enum slb_op)i));
				fprintf(stderr, "\n");
				return 2;
			}
			cfg.op = (enum slb_op)i;
			break;
		case 's':
			if (strcmp(optarg, "4") && strcmp(optarg, "8")) {
				fprintf(stderr, "slb-load: --size '%s' is not 4 or 8\n", optarg);
				return 2;
			}
			cfg.size = atoi(optarg);
			break;
		case 't':
			if (num_parse("slb-load", "--threads", optarg, 1, MAX_THREADS, 1, &d))
				return 2;
			cfg.threads = (int)d;
			break;
		case 'c':
			if (parse_cpus(optarg))
				return 2;
			break;
		case 'r':
			if (parse_double("--rate", optarg, 0, 1e9, &cfg.rate))
				return 2;
			break;
		case OPT_ON:
			if (parse_double("--on", optarg, 0.001, 1e6, &cfg.on_ms))
				return 2;
			break;
		case OPT_OFF:
			if (parse_double("--off", optarg, 0, 1e6, &cfg.off_ms))
				return 2;
			break;
		case 'd':
			if (parse_double("--duration", optarg, 0.001, MAX_DURATION_S, &cfg.duration_s))
				return 2;
			break;
		case 'n':
			if (num_parse("slb-load", "--ops", optarg, 1, 1e15, 1, &d))
				return 2;
			cfg.max_ops = (uint64_t)d;
			break;
		case OPT_STATS: cfg.stats_path = optarg; break;
		case OPT_REPORT: report_path = optarg; break;
		case OPT_CALIBRATE:
			if (parse_double("--calibrate", optarg, 1, 1e9, &calib))
				return 2;
			break;
		case OPT_CATCH: cfg.catch_sigbus = 1; break;
		case OPT_ADDR: print_addr = 1; break;
		case OPT_FIFO:
			if (num_parse("slb-load", "--fifo", optarg, 1, 99, 1, &d))
				return 2;
			cfg.fifo = (int)d;
			break;
		case OPT_MARK:
			if ((cfg.mark_fd = open(optarg, O_WRONLY | O_CLOEXEC)) < 0) {
				fprintf(stderr, "slb-load: --mark '%s': cannot open it for writing: %s\n", optarg,
					strerror(errno));
				return 1;
			}
			break;
		case 'j': cfg.json = 1; break;
		case 'h': usage(stdout); return 0;
		default: usage(stderr); return 2;
		}
	}
	if (optind < argc) {
		fprintf(stderr, "slb-load: unexpected argument '%s'\n", argv[optind]);
		return 2;
	}
	if ((cfg.off_ms > 0) != (cfg.on_ms > 0)) {
		fprintf(stderr, "slb-load: --on and --off go together\n");
		return 2;
	}
	if (report_path)
		return report(report_path, cfg.json);
	if (print_addr) {
		for (int m = 0; m < 3; m++) {
			uintptr_t a = (uintptr_t)slb_operand(line_bufs[0] + SLB_LINE, (enum slb_mode)m, (size_t)cfg.size);

			printf("%s 0x%lx offset %lu size %d crosses %d\n", mode_names[m], (unsigned long)a,
			       (unsigned long)(a % SLB_LINE), cfg.size, slb_crosses_line(a, (size_t)cfg.size));
		}
		return 0;
	}
	if (calib > 0)
		return calibrate((uint64_t)calib, cfg.json);

	stats = map_stats(cfg.stats_path);
	if (!stats)
		return 1;
	memset(stats, 0, sizeof(*stats));
	snprintf(stats->mode, sizeof(stats->mode), "%s", mode_names[cfg.mode]);
	snprintf(stats->op, sizeof(stats->op), "%s", slb_op_name(cfg.op));
	stats->size = cfg.size;
	stats->threads = cfg.threads;
	stats->rate = cfg.rate;
	stats->duration_s = cfg.duration_s;
	stats->start_ns = now_ns();
	atomic_store(&stats->last_ns, stats->start_ns);
	stats->magic = STATS_MAGIC;
	if (cfg.catch_sigbus) {
		struct sigaction sa = { .sa_sigaction = on_sigbus, .sa_flags = SA_SIGINFO };

		sigaction(SIGBUS, &sa, NULL);
	}
	/* The threads inherit the policy. */
	if (cfg.fifo && sched_setscheduler(0, SCHED_FIFO, &(struct sched_param){ .sched_priority = cfg.fifo })) {
		fprintf(stderr, "slb-load: cannot run as SCHED_FIFO %d: %s\n", cfg.fifo, strerror(errno));
		return 1;
	}
	for (i = 0; i < cfg.threads; i++) {
		if (pthread_create(&tids[i], NULL, worker, (void *)(intptr_t)i)) {
			fprintf(stderr, "slb-load: cannot start thread %d\n", i);
			return 1;
		}
	}
	for (i = 0; i < cfg.threads; i++)
		pthread_join(tids[i], NULL);
	atomic_store(&stats->finished, 1);
	print_stats(stats, cfg.json, now_ns());
	return 0;
}
