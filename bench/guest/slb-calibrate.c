// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * slb-calibrate: what split locks cost on the machine it runs on (make
 * calibrate; issue 20). Two measurements, reps interleaved:
 *   issuer  ns per LOCKed operation, aligned and split, for each form the
 *           project issues (bench/lib/lockop.h), on the load CPU with the
 *           victim CPU idle;
 *   victim  ns per step, on the victim CPU, of an arithmetic chain and of
 *           dependent loads through working sets from inside L1 to past
 *           the last-level cache (bench/lib/victim.h), while the load CPU
 *           runs no load, an aligned LOCK loop or a split LOCK loop (the
 *           three rotated within each rep);
 *   wake-up a thread on the victim CPU sleeps and is woken, once per
 *           interval, under the same three loads (bench/lib/wakeup.h):
 *           timer (clock_nanosleep to each period, as cyclictest) and
 *           futex (woken by a thread on the load CPU, run above the load);
 *           per rep the median, 99th percentile and largest of its ns
 *           late, as SCHED_FIFO 95 where permitted (a note otherwise).
 * Medians over reps with order-statistic 95 % intervals, ratios (split /
 * aligned, aligned / none) as Hodges-Lehmann estimates on logs with their
 * distribution-free 95 % intervals (bench/lib/reptest.h), as slb-ratio.
 * A human table on stdout (or JSON with --json; --json-out FILE writes the
 * JSON as well); progress on stderr. Plain libc: it builds static and runs
 * in the guest too (issue 21 compares the two).
 *
 * Split locks natively slow every CPU of the machine, which may be shared:
 * the run is planned before it starts, and refused when the plan holds
 * more split-lock seconds than --max-split-s.
 *
 * Exit status: 0 done, 1 failure (fewer than 2 CPUs available, no cache
 * sizes known, out of memory, cannot pin a thread), 2 bad input.
 */
#include "../lib/cacheinfo.h"
#include "../lib/lockop.h"
#include "../lib/num.h"
#include "../lib/reptest.h"
#include "../lib/splitaddr.h"
#include "../lib/victim.h"
#include "../lib/wakeup.h"

#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <pthread.h>
#include <sched.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#define PROG "slb-calibrate"
#define MAX_SIZES 32
#define MAX_REPS 100
#define ALPHA 0.05
#define SEED 1
/* Defaults; make calibrate passes rt-config/defaults.conf's (CAL_*), the same. */
#define DEF_DURATION 0.5
#define DEF_REPS 6
#define DEF_ISSUER_MS 20.0
#define DEF_MAX_SPLIT_S 90.0
#define DEF_WAKE_INTERVAL_US 1000.0
#define WAKE_PRIO 95
#define MIN_SIZE 1024ull
#define MAX_SIZE (64ull << 30)

enum load { LOAD_NONE, LOAD_ALIGNED, LOAD_SPLIT, NLOADS };
static const char *const load_names[NLOADS] = { "none", "aligned", "split" };

struct form {
	const char *name;
	enum slb_op op;
	int size;
};

static const struct form forms_all[] = {
	{ "add32", SLB_OP_ADD, 4 }, { "add64", SLB_OP_ADD, 8 },
	{ "xadd32", SLB_OP_XADD, 4 }, { "xadd64", SLB_OP_XADD, 8 },
	{ "xchg32", SLB_OP_XCHG, 4 }, { "xchg64", SLB_OP_XCHG, 8 },
	{ "cmpxchg32", SLB_OP_CMPXCHG, 4 }, { "cmpxchg64", SLB_OP_CMPXCHG, 8 },
	{ "inc32", SLB_OP_INC, 4 }, { "inc64", SLB_OP_INC, 8 },
	{ "bts32", SLB_OP_BTS, 4 }, { "bts64", SLB_OP_BTS, 8 },
	{ "cmpxchg8b", SLB_OP_CMPXCHG8B, 8 }, { "cmpxchg16b", SLB_OP_CMPXCHG16B, 16 },
};
#define NFORMS ((int)(sizeof(forms_all) / sizeof(forms_all[0])))

enum probe { PROBE_TIMER, PROBE_FUTEX, NPROBES };
static const char *const probe_names[NPROBES] = { "timer", "futex" };
static const char *const probe_what[NPROBES] = {
	"clock_nanosleep(TIMER_ABSTIME) to each period on the victim CPU, as cyclictest: ns from the period to "
	"the thread reading the clock",
	"a futex wait on the victim CPU, woken by a thread on the load CPU once per period: ns from the waker "
	"reading the clock just before FUTEX_WAKE to the woken thread reading it",
};

struct config {
	double duration, issuer_ms, load_rate, max_split_s, wake_interval_us, wake_duration;
	int reps, victim_cpu, load_cpu, json, validate, nsizes, nforms, load_form;
	int probes[NPROBES], nprobes;	/* the wake-up probes run, in order */
	int forms[NFORMS];
	uint64_t sizes[MAX_SIZES];
	const char *json_out, *sysroot;
};

struct machine {
	char cpu_model[128], vendor[64], kernel[128];
	int hypervisor, split_lock_detect, bus_lock_detect, cpus_available;
	uint64_t ram;
	struct cacheinfo ci;
};

/* One victim measurement point: the arithmetic loop or a working set. */
struct point {
	int arith, huge;
	uint64_t bytes;
	char level[8];
	double ns[NLOADS][MAX_REPS];		/* ns per step */
	double load_rate[NLOADS][MAX_REPS];	/* the load's ops per second */
};

static struct config cfg;
static struct machine mach;
static struct point *points;
static int npoints;

/* The wake-up probe's figures per probe, load and rep (ns late). */
struct wprobe {
	double p50[NLOADS][MAX_REPS], p99[NLOADS][MAX_REPS], max[NLOADS][MAX_REPS];
	double wakeups[NLOADS][MAX_REPS], load_rate[NLOADS][MAX_REPS];
	uint64_t missed, timeouts;
};
static struct wprobe wprobes[NPROBES];
static int wake_fifo, wake_mlocked;	/* the probe's threads ran SCHED_FIFO; memory locked */
static double issuer_ns[NFORMS][2][MAX_REPS];	/* [form][0 aligned, 1 split][rep] */
static double split_s_victim, split_s_issuer, split_s_wakeup;
/* The loads in the order rep r runs them: rotated by one per rep. */
static enum load load_order[MAX_REPS][NLOADS];
static int64_t t_start;
static char notes[8][320];
static FILE *log_file;	/* --log */
static int nnotes;

/* The operands: the issuer's and the load's, away from the flags below. */
static unsigned char opbuf[4 * SLB_LINE] __attribute__((aligned(SLB_LINE)));

struct load_ctx {
	_Alignas(SLB_LINE) _Atomic int started;
	_Atomic int stop;
	enum slb_mode mode;
	int cpu;
	int64_t ns;
	uint64_t ops;
};

static void note(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void note(const char *fmt, ...)
{
	va_list ap;

	if (nnotes >= 8)
		return;
	va_start(ap, fmt);
	vsnprintf(notes[nnotes++], sizeof(notes[0]), fmt, ap);
	va_end(ap);
}

static void progress(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* A progress line on stderr, and in the --log file. */
static void progress(const char *fmt, ...)
{
	FILE *outs[2] = { stderr, log_file };
	int64_t s = (victim_now_ns() - t_start) / 1000000000;

	for (int i = 0; i < 2 && outs[i]; i++) {
		va_list ap;

		fprintf(outs[i], "[%02lld:%02lld] " PROG ": ", (long long)(s / 60), (long long)(s % 60));
		va_start(ap, fmt);
		vfprintf(outs[i], fmt, ap);
		va_end(ap);
		fputc('\n', outs[i]);
		fflush(outs[i]);
	}
}

static const char *size_str(uint64_t b)
{
	static char buf[4][32];
	static int k;

	k = (k + 1) % 4;
	return num_format_size(b, buf[k], sizeof(buf[k]));
}

/* ---------------------------------------------------------------- machine */

static void read_cpuinfo(void)
{
	FILE *f = fopen("/proc/cpuinfo", "r");
	char line[8192];

	snprintf(mach.cpu_model, sizeof(mach.cpu_model), "unknown");
	snprintf(mach.vendor, sizeof(mach.vendor), "unknown");
	if (!f)
		return;
	while (fgets(line, sizeof(line), f) && line[0] != '\n') {
		char *v = strchr(line, ':');

		if (!v)
			continue;
		v += 1 + (v[1] == ' ');
		v[strcspn(v, "\n")] = '\0';
		if (!strncmp(line, "model name", 10))
			snprintf(mach.cpu_model, sizeof(mach.cpu_model), "%s", v);
		else if (!strncmp(line, "vendor_id", 9))
			snprintf(mach.vendor, sizeof(mach.vendor), "%s", v);
		else if (!strncmp(line, "flags", 5)) {
			char padded[8200];

			snprintf(padded, sizeof(padded), " %s ", v);
			mach.hypervisor = strstr(padded, " hypervisor ") != NULL;
			mach.split_lock_detect = strstr(padded, " split_lock_detect ") != NULL;
			mach.bus_lock_detect = strstr(padded, " bus_lock_detect ") != NULL;
		}
	}
	fclose(f);
}

static void read_machine(void)
{
	struct utsname u;
	cpu_set_t set;

	read_cpuinfo();
	snprintf(mach.kernel, sizeof(mach.kernel), "%s", uname(&u) ? "unknown" : u.release);
	mach.ram = (uint64_t)sysconf(_SC_PHYS_PAGES) * (uint64_t)sysconf(_SC_PAGESIZE);
	mach.cpus_available = sched_getaffinity(0, sizeof(set), &set) ? 1 : CPU_COUNT(&set);
}

/*
 * The cache level whose size bounds bytes ("L2"), "DRAM" past them all,
 * "?" when no cache sizes are known (--sizes given).
 */
static void level_of(uint64_t bytes, char *out, size_t len)
{
	if (!mach.ci.n) {
		snprintf(out, len, "?");
		return;
	}
	for (int i = 0; i < mach.ci.n; i++) {
		if (bytes <= mach.ci.c[i].bytes) {
			snprintf(out, len, "L%d", mach.ci.c[i].level);
			return;
		}
	}
	snprintf(out, len, "DRAM");
}

static uint64_t llc_bytes(void)
{
	return mach.ci.c[mach.ci.n - 1].bytes;
}

/* ---------------------------------------------------------------- options */

static void usage(FILE *out)
{
	fprintf(out,
		"Usage: " PROG " [options]\n"
		"Measure what split locks cost on this machine: the issuer's ns per LOCKed\n"
		"operation (aligned, split) and a victim's ns per step on another CPU (an\n"
		"arithmetic loop; dependent loads through working sets from inside L1 to past\n"
		"the last-level cache) under no load, an aligned and a split LOCK loop, and\n"
		"how late a thread on the victim CPU is woken under the same loads.\n\n"
		"  -d, --duration S      seconds per victim run (one size, one load, one rep),\n"
		"                        0.001 to 60 (default %g)\n"
		"  -r, --reps N          reps, 1 to %d; 95 %% intervals need 4 (ratios) and 6\n"
		"                        (medians) (default %d)\n"
		"  -s, --sizes LIST      working sets, comma-separated, e.g. 16K,1M,256M (%s to\n"
		"                        %s, whole 64-byte lines, at most a quarter of RAM), or\n"
		"                        auto: 4 KiB x4 up to twice the last-level cache (default)\n"
		"  -c, --cpus V,L        victim CPU and load CPU, online (isolated CPUs too);\n"
		"                        default: the last and the first this process may use\n"
		"      --issuer-ms MS    ms per form, mode and rep for the issuer, 0.1 to 10000\n"
		"                        (default %g)\n"
		"      --forms LIST      issuer forms, comma-separated, or all (default):\n"
		"                        ",
		DEF_DURATION, MAX_REPS, DEF_REPS, size_str(MIN_SIZE), size_str(MAX_SIZE), DEF_ISSUER_MS);
	for (int i = 0; i < NFORMS; i++)
		fprintf(out, "%s%s", forms_all[i].name, i + 1 < NFORMS ? (i % 7 == 6 ? "\n                        " : " ") : "\n");
	fprintf(out,
		"      --load-form NAME  the victim's load, one of the forms (default add32)\n"
		"      --load-rate OPS   LOCKed ops per second of the victim's load, 0 = flat\n"
		"                        out (default 0)\n"
		"      --wakeup LIST     wake-up probes, comma-separated: timer (clock_nanosleep,\n"
		"                        as cyclictest), futex (woken from the load CPU); all\n"
		"                        (default) or none\n"
		"      --wakeup-interval US  the probes' period, 50 to 1000000 us (default %g)\n"
		"      --wakeup-duration S   seconds per probe run (one probe, load and rep),\n"
		"                        0.001 to 60 (default: --duration)\n"
		"      --max-split-s S   refuse a plan with more split-lock seconds, 0.01 to\n"
		"                        3600 (default %g; split locks slow the whole machine)\n"
		"  -j, --json            JSON on stdout instead of the table\n"
		"  -o, --json-out FILE   write the JSON to FILE as well\n"
		"      --log FILE        write the progress lines to FILE as well\n"
		"      --sysfs DIR       read the caches under DIR instead of /sys (tests)\n"
		"      --validate        check the options, print the plan, measure nothing\n"
		"  -h, --help            this text\n\n"
		"Exit status: 0 done, 1 failure (fewer than 2 CPUs, no cache sizes, no memory),\n"
		"2 bad input.\n",
		DEF_WAKE_INTERVAL_US, DEF_MAX_SPLIT_S);
}

static int find_form(const char *opt, const char *name)
{
	for (int i = 0; i < NFORMS; i++)
		if (!strcmp(name, forms_all[i].name))
			return i;
	fprintf(stderr, PROG ": %s '%s' is not a form (allowed: add32 add64 xadd32 xadd64 xchg32 xchg64 "
		"cmpxchg32 cmpxchg64 inc32 inc64 bts32 bts64 cmpxchg8b cmpxchg16b)\n", opt, name);
	return -1;
}

static int parse_forms(const char *text)
{
	char buf[512], *tok, *save = NULL;

	cfg.nforms = 0;
	if (!strcmp(text, "all")) {
		for (int i = 0; i < NFORMS; i++)
			cfg.forms[cfg.nforms++] = i;
		return 0;
	}
	snprintf(buf, sizeof(buf), "%s", text);
	for (tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		int f = find_form("--forms", tok);

		if (f < 0)
			return -1;
		for (int i = 0; i < cfg.nforms; i++) {
			if (cfg.forms[i] == f) {
				fprintf(stderr, PROG ": --forms '%s' names %s twice\n", text, tok);
				return -1;
			}
		}
		cfg.forms[cfg.nforms++] = f;
	}
	if (!cfg.nforms) {
		fprintf(stderr, PROG ": --forms '%s' names no form\n", text);
		return -1;
	}
	return 0;
}

/* --wakeup LIST: timer, futex, all or none. */
static int parse_probes(const char *text)
{
	char buf[128], *tok, *save = NULL;

	cfg.nprobes = 0;
	if (!strcmp(text, "none"))
		return 0;
	if (!strcmp(text, "all")) {
		for (int i = 0; i < NPROBES; i++)
			cfg.probes[cfg.nprobes++] = i;
		return 0;
	}
	snprintf(buf, sizeof(buf), "%s", text);
	for (tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		int p = -1;

		for (int i = 0; i < NPROBES; i++)
			if (!strcmp(tok, probe_names[i]))
				p = i;
		if (p < 0) {
			fprintf(stderr, PROG ": --wakeup '%s' is not a probe (allowed: timer, futex, all, none)\n", tok);
			return -1;
		}
		for (int i = 0; i < cfg.nprobes; i++) {
			if (cfg.probes[i] == p) {
				fprintf(stderr, PROG ": --wakeup '%s' names %s twice\n", text, tok);
				return -1;
			}
		}
		cfg.probes[cfg.nprobes++] = p;
	}
	if (!cfg.nprobes) {
		fprintf(stderr, PROG ": --wakeup '%s' names no probe (allowed: timer, futex, all, none)\n", text);
		return -1;
	}
	return 0;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return (x > y) - (x < y);
}

/* --sizes LIST (checked against RAM later, once known). */
static int parse_sizes(const char *text)
{
	char buf[512], *tok, *save = NULL;

	cfg.nsizes = 0;
	if (!strcmp(text, "auto"))
		return 0;
	if (strlen(text) >= sizeof(buf)) {
		fprintf(stderr, PROG ": --sizes '%.40s...' is too long\n", text);
		return -1;
	}
	snprintf(buf, sizeof(buf), "%s", text);
	for (tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		uint64_t v;

		if (cfg.nsizes >= MAX_SIZES) {
			fprintf(stderr, PROG ": --sizes '%s' holds more than %d sizes\n", text, MAX_SIZES);
			return -1;
		}
		if (num_parse_size(PROG, "--sizes: size", tok, MIN_SIZE, MAX_SIZE, &v))
			return -1;
		if (v % VICTIM_LINE) {
			fprintf(stderr, PROG ": --sizes: size '%s' is not a whole number of %d-byte lines\n", tok,
				VICTIM_LINE);
			return -1;
		}
		for (int i = 0; i < cfg.nsizes; i++) {
			if (cfg.sizes[i] == v) {
				fprintf(stderr, PROG ": --sizes '%s' names %s twice\n", text, tok);
				return -1;
			}
		}
		cfg.sizes[cfg.nsizes++] = v;
	}
	if (!cfg.nsizes) {
		fprintf(stderr, PROG ": --sizes '%s' names no size (e.g. 16K,1M or auto)\n", text);
		return -1;
	}
	qsort(cfg.sizes, (size_t)cfg.nsizes, sizeof(cfg.sizes[0]), cmp_u64);
	return 0;
}

/* A list of the CPUs in set, "0-1,4". */
static void cpu_list(const cpu_set_t *set, char *out, size_t len)
{
	size_t n = 0;

	out[0] = '\0';
	for (int c = 0; c < CPU_SETSIZE && n + 16 < len; c++) {
		int e = c;

		if (!CPU_ISSET(c, set))
			continue;
		while (e + 1 < CPU_SETSIZE && CPU_ISSET(e + 1, set))
			e++;
		n += (size_t)snprintf(out + n, len - n, "%s%d", n ? "," : "", c);
		if (e > c)
			n += (size_t)snprintf(out + n, len - n, "-%d", e);
		c = e;
	}
}

/* The online CPUs (/sys/devices/system/cpu/online, "0-3,6"); 0 or -1. */
static int online_cpus(cpu_set_t *set)
{
	FILE *f = fopen("/sys/devices/system/cpu/online", "r");
	char buf[1024], *s = buf, *end;

	CPU_ZERO(set);
	if (!f)
		return -1;
	if (!fgets(buf, sizeof(buf), f)) {
		fclose(f);
		return -1;
	}
	fclose(f);
	while (*s && *s != '\n') {
		long lo = strtol(s, &end, 10), hi = lo;

		if (end == s)
			return -1;
		if (*end == '-')
			hi = strtol(end + 1, &end, 10);
		for (long c = lo; c <= hi && c < CPU_SETSIZE; c++)
			CPU_SET((int)c, set);
		s = *end == ',' ? end + 1 : end;
	}
	return CPU_COUNT(set) ? 0 : -1;
}

/*
 * The victim and load CPUs: --cpus V,L, both online (they may lie outside
 * this process's affinity: isolated CPUs do, as in the guest), or the last
 * and the first CPU of the affinity. 0, 1 (fewer than 2 CPUs), 2 (bad
 * --cpus).
 */
static int pick_cpus(const char *text)
{
	cpu_set_t set, online;
	char avail[256];
	int first = -1, last = -1;

	if (sched_getaffinity(0, sizeof(set), &set)) {
		fprintf(stderr, PROG ": cannot read the CPUs available: %s\n", strerror(errno));
		return 1;
	}
	cpu_list(&set, avail, sizeof(avail));
	if (text) {
		char on[256];

		if (online_cpus(&online))
			online = set;
		cpu_list(&online, on, sizeof(on));
		int v[3], n = 0;
		const char *s = text;

		while (n < 3) {
			char *end;
			long c;

			errno = 0;
			c = strtol(s, &end, 10);
			if (end == s || errno || c < 0 || c >= CPU_SETSIZE || (*end && *end != ',') ||
			    *s == '+' || *s == ' ') {
				fprintf(stderr, PROG ": --cpus '%s' is not two CPU numbers VICTIM,LOAD (e.g. 1,0)\n",
					text);
				return 2;
			}
			v[n++] = (int)c;
			if (!*end)
				break;
			s = end + 1;
		}
		if (n != 2) {
			fprintf(stderr, PROG ": --cpus '%s' names %d CPU%s; the calibration needs two, VICTIM,LOAD "
				"(e.g. 1,0)\n", text, n > 2 ? 3 : n, n == 1 ? "" : "s or more");
			return 2;
		}
		if (v[0] == v[1]) {
			fprintf(stderr, PROG ": --cpus '%s': the victim and the load need two different CPUs\n", text);
			return 2;
		}
		for (int i = 0; i < 2; i++) {
			if (!CPU_ISSET(v[i], &online)) {
				fprintf(stderr, PROG ": --cpus '%s': CPU %d does not exist or is offline (online: %s)\n",
					text, v[i], on);
				return 2;
			}
		}
		cfg.victim_cpu = v[0];
		cfg.load_cpu = v[1];
		return 0;
	}
	for (int c = 0; c < CPU_SETSIZE; c++) {
		if (CPU_ISSET(c, &set)) {
			if (first < 0)
				first = c;
			last = c;
		}
	}
	if (CPU_COUNT(&set) < 2) {
		fprintf(stderr, PROG ": needs 2 CPUs, a victim and a load, and only %d is available here (CPU %s; "
			"--cpus VICTIM,LOAD may name CPUs outside this process's affinity): nothing measured\n",
			CPU_COUNT(&set), avail);
		return 1;
	}
	cfg.victim_cpu = last;
	cfg.load_cpu = first;
	return 0;
}

/* Sizes from the caches (auto) or checked against RAM; 0, 1 or 2. */
static int plan_sizes(void)
{
	uint64_t cap = mach.ram / 4, top;

	if (cfg.nsizes) {
		for (int i = 0; i < cfg.nsizes; i++) {
			if (cfg.sizes[i] > cap) {
				fprintf(stderr, PROG ": --sizes: %s is more than a quarter of this machine's RAM (%s)\n",
					size_str(cfg.sizes[i]), size_str(mach.ram));
				return 2;
			}
		}
		return 0;
	}
	if (!mach.ci.n) {
		fprintf(stderr, PROG ": no cache sizes in sysfs or sysconf; give --sizes\n");
		return 1;
	}
	top = 2 * llc_bytes();
	if (top > cap) {
		note("working sets stop at %s, a quarter of RAM, short of twice the last-level cache (%s)",
		     size_str(cap), size_str(top));
		top = cap;
	}
	for (uint64_t s = 4096; cfg.nsizes < MAX_SIZES; s *= 4) {
		if (s > cap)
			break;
		cfg.sizes[cfg.nsizes++] = s;
		if (s >= top)
			break;
	}
	return 0;
}

static int split_forms(void)
{
	int n = 0;

	for (int i = 0; i < cfg.nforms; i++)
		n += slb_op_can_split(forms_all[cfg.forms[i]].op);
	return n;
}

/* Seconds the plan runs in all, and under split locks. */
static void plan_seconds(double *total, double *split)
{
	int np = 1 + cfg.nsizes;

	/* the wake-up probes: a warm-up each (no load, at most 0.1 s), then every load and rep */
	double wake = cfg.nprobes * cfg.wake_duration;

	*split = np * cfg.reps * cfg.duration + split_forms() * cfg.reps * cfg.issuer_ms / 1000 + cfg.reps * wake;
	*total = np * (cfg.reps * NLOADS + 1) * cfg.duration +
		 (cfg.nforms + split_forms()) * cfg.reps * cfg.issuer_ms / 1000 +
		 cfg.reps * NLOADS * wake + cfg.nprobes * fmin(cfg.wake_duration, 0.1);
}

/* ------------------------------------------------------------ measurement */

static int pin_self(int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	if (sched_setaffinity(0, sizeof(set), &set)) {
		fprintf(stderr, PROG ": cannot run on CPU %d: %s\n", cpu, strerror(errno));
		return -1;
	}
	return 0;
}

/* ns per op of a form on the calling thread, in batches for budget_s. */
static double issuer_measure(const struct form *f, enum slb_mode mode, double budget_s)
{
	void *p = slb_operand(opbuf + SLB_LINE, mode, (size_t)f->size);
	int64_t t0 = victim_now_ns(), t, budget = (int64_t)(budget_s * 1e9);
	uint64_t ops = 0, batch = 1;

	do {
		for (uint64_t i = 0; i < batch; i++)
			slb_lock_op(f->op, f->size, p);
		ops += batch;
		t = victim_now_ns();
		/* batches grow until the clock costs nothing beside them */
		if (t - t0 < budget / 64 && batch < (1u << 16))
			batch *= 2;
	} while (t - t0 < budget);
	if (mode == SLB_MODE_SPLIT)
		split_s_issuer += (double)(t - t0) / 1e9;
	return (double)(t - t0) / (double)ops;
}

static void sleep_until(int64_t t)
{
	struct timespec ts = { .tv_sec = t / 1000000000, .tv_nsec = t % 1000000000 };

	while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR)
		;
}

/* The victim's load: the load form, in a loop, until told to stop. */
static void *load_main(void *arg)
{
	struct load_ctx *L = arg;
	const struct form *f = &forms_all[cfg.load_form];
	void *p = slb_operand(opbuf + SLB_LINE, L->mode, (size_t)f->size);
	int64_t gap = cfg.load_rate > 0 ? (int64_t)(1e9 / cfg.load_rate) : 0, t0 = victim_now_ns(), next = t0;
	uint64_t ops = 1;

	slb_lock_op(f->op, f->size, p);
	atomic_store(&L->started, 1);
	while (!atomic_load_explicit(&L->stop, memory_order_relaxed)) {
		if (gap) {
			int64_t t = victim_now_ns();

			/* keep the rate; no burst to catch up after a stall */
			if (next < t - gap)
				next = t;
			next += gap;
			if (next > t)
				sleep_until(next);
		}
		slb_lock_op(f->op, f->size, p);
		ops++;
	}
	L->ns = victim_now_ns() - t0;
	L->ops = ops;
	return NULL;
}

/* Start load ld (none: nothing) on the load CPU, and wait until it runs. 0 or -1. */
static int load_start(struct load_ctx *L, pthread_t *tid, enum load ld)
{
	pthread_attr_t attr;
	cpu_set_t set;
	int rc;

	*L = (struct load_ctx){ .mode = ld == LOAD_SPLIT ? SLB_MODE_SPLIT : SLB_MODE_ALIGNED, .cpu = cfg.load_cpu };
	if (ld == LOAD_NONE)
		return 0;
	CPU_ZERO(&set);
	CPU_SET(cfg.load_cpu, &set);
	pthread_attr_init(&attr);
	pthread_attr_setaffinity_np(&attr, sizeof(set), &set);
	/* SCHED_OTHER whatever the caller runs as */
	pthread_attr_setinheritsched(&attr, PTHREAD_EXPLICIT_SCHED);
	pthread_attr_setschedpolicy(&attr, SCHED_OTHER);
	pthread_attr_setschedparam(&attr, &(struct sched_param){ .sched_priority = 0 });
	rc = pthread_create(tid, &attr, load_main, L);
	pthread_attr_destroy(&attr);
	if (rc) {
		fprintf(stderr, PROG ": cannot start the load on CPU %d: %s\n", cfg.load_cpu, strerror(rc));
		return -1;
	}
	while (!atomic_load(&L->started))
		;
	return 0;
}

/* Stop load ld; its ops per second (NAN: no load); split seconds into *split_s. */
static double load_stop(struct load_ctx *L, pthread_t tid, enum load ld, double *split_s)
{
	if (ld == LOAD_NONE)
		return NAN;
	atomic_store(&L->stop, 1);
	pthread_join(tid, NULL);
	if (ld == LOAD_SPLIT)
		*split_s += (double)L->ns / 1e9;
	return L->ns > 0 ? (double)L->ops * 1e9 / (double)L->ns : NAN;
}

/* One victim run under load ld; ns per step into pt. 0 or -1. */
static int victim_measure(struct point *pt, const struct victim_chain *c, enum load ld, int rep)
{
	struct load_ctx L;
	struct victim_result r;
	pthread_t tid;

	if (load_start(&L, &tid, ld))
		return -1;
	victim_run(c, cfg.duration, &r);
	pt->ns[ld][rep] = (double)r.ns / (double)r.steps;
	pt->load_rate[ld][rep] = load_stop(&L, tid, ld, &split_s_victim);
	return 0;
}

static double median_of(const double *v, int n)
{
	double est, lo, hi;

	reptest_median(v, n, ALPHA, &est, &lo, &hi);
	return est;
}

static int run_issuer(void)
{
	if (pin_self(cfg.load_cpu))
		return -1;
	for (int r = 0; r < cfg.reps; r++) {
		for (int k = 0; k < cfg.nforms; k++) {
			/* forms and modes rotated from rep to rep */
			int fi = cfg.forms[(k + r) % cfg.nforms];
			const struct form *f = &forms_all[fi];

			for (int m = 0; m < 2; m++) {
				int split = (m + r) % 2;

				if (split && !slb_op_can_split(f->op)) {
					issuer_ns[fi][1][r] = NAN;
					continue;
				}
				issuer_ns[fi][split][r] = issuer_measure(f, split ? SLB_MODE_SPLIT : SLB_MODE_ALIGNED,
									 cfg.issuer_ms / 1000);
			}
		}
		progress("issuer rep %d/%d on CPU %d: %d forms, aligned and split", r + 1, cfg.reps, cfg.load_cpu,
			 cfg.nforms);
	}
	return 0;
}

static int run_victim(double total_s)
{
	if (pin_self(cfg.victim_cpu))
		return -1;
	for (int i = 0; i < npoints; i++) {
		struct point *pt = &points[i];
		struct victim_chain chain, *c = NULL;
		struct victim_result warm;

		if (!pt->arith) {
			if (pt->bytes >= (64u << 20))
				progress("[%d/%d] linking %s into a random chain", i + 1, npoints, size_str(pt->bytes));
			if (victim_chain_build(&chain, pt->bytes, SEED + i)) {
				fprintf(stderr, PROG ": cannot map a %s working set: %s\n", size_str(pt->bytes),
					strerror(errno));
				return -1;
			}
			c = &chain;
			pt->huge = chain.huge;
		}
		victim_run(c, cfg.duration, &warm);
		for (int r = 0; r < cfg.reps; r++)
			for (int k = 0; k < NLOADS; k++)
				if (victim_measure(pt, c, load_order[r][k], r)) {
					if (c)
						victim_chain_free(c);
					return -1;
				}
		if (c)
			victim_chain_free(c);
		{
			double el = (double)(victim_now_ns() - t_start) / 1e9;

			progress("[%d/%d] %s%s%s%s: none %.3g, aligned %.3g, split %.3g ns/step (medians of %d); "
				 "%.0f s in, about %.0f s to go", i + 1, npoints, pt->arith ? "arith" : "chase ",
				 pt->arith ? "" : size_str(pt->bytes), pt->arith ? "" : " in ",
				 pt->arith ? "" : pt->level, median_of(pt->ns[LOAD_NONE], cfg.reps),
				 median_of(pt->ns[LOAD_ALIGNED], cfg.reps), median_of(pt->ns[LOAD_SPLIT], cfg.reps),
				 cfg.reps, el, fmax(0, total_s - el));
		}
	}
	return 0;
}

/* --------------------------------------------------------------- wake-ups */

/* The calling thread to SCHED_FIFO WAKE_PRIO (on) or back to SCHED_OTHER; 0 or an errno. */
static int set_fifo(int on)
{
	struct sched_param sp = { .sched_priority = on ? WAKE_PRIO : 0 };

	return pthread_setschedparam(pthread_self(), on ? SCHED_FIFO : SCHED_OTHER, &sp);
}

/* One run of probe p for seconds into w (futex: its waker on the load CPU). 0 or -1. */
static int probe_run(enum probe p, struct wakeup_run *w, double seconds)
{
	int64_t iv = (int64_t)(cfg.wake_interval_us * 1000);
	struct wakeup_futex f;
	pthread_attr_t attr;
	pthread_t tid;
	cpu_set_t set;
	int rc;

	if (p == PROBE_TIMER) {
		wakeup_timer(w, iv, seconds);
		return 0;
	}
	wakeup_futex_init(&f, iv);
	CPU_ZERO(&set);
	CPU_SET(cfg.load_cpu, &set);
	pthread_attr_init(&attr);
	pthread_attr_setaffinity_np(&attr, sizeof(set), &set);
	if (wake_fifo) {
		/* above the load on its CPU, as a woken RT task would be */
		struct sched_param sp = { .sched_priority = WAKE_PRIO };

		pthread_attr_setinheritsched(&attr, PTHREAD_EXPLICIT_SCHED);
		pthread_attr_setschedpolicy(&attr, SCHED_FIFO);
		pthread_attr_setschedparam(&attr, &sp);
	}
	rc = pthread_create(&tid, &attr, wakeup_futex_waker, &f);
	pthread_attr_destroy(&attr);
	if (rc) {
		fprintf(stderr, PROG ": cannot start the futex waker on CPU %d: %s\n", cfg.load_cpu, strerror(rc));
		return -1;
	}
	wakeup_futex_wait(&f, w, seconds);
	pthread_join(tid, NULL);
	return 0;
}

/*
 * The wake-up probes on the victim CPU: a warm-up each under no load, then
 * per rep the three loads in the rep's order, each probe in turn under
 * one run of the load (the probes' order rotated per rep).
 */
static int run_wakeup(void)
{
	size_t cap = (size_t)(cfg.wake_duration * 1e6 / cfg.wake_interval_us) + 16;
	double *buf;
	struct wakeup_run w;
	int e;

	if (!cfg.nprobes)
		return 0;
	if (pin_self(cfg.victim_cpu))
		return -1;
	buf = calloc(cap, sizeof(*buf));
	if (!buf) {
		fprintf(stderr, PROG ": out of memory\n");
		return -1;
	}
	w = (struct wakeup_run){ .lat = buf, .cap = cap };
	e = set_fifo(1);
	wake_fifo = !e;
	if (e)
		note("the wake-up probes ran SCHED_OTHER: SCHED_FIFO %d was refused (%s); cyclictest runs "
		     "SCHED_FIFO 95", WAKE_PRIO, strerror(e));
	/* as cyclictest -m: no page fault on the way */
	wake_mlocked = !mlockall(MCL_CURRENT);
	if (!wake_mlocked)
		note("the wake-up probes ran with memory unlocked: mlockall failed (%s)", strerror(errno));
	for (int k = 0; k < cfg.nprobes; k++)
		if (probe_run((enum probe)cfg.probes[k], &w, fmin(cfg.wake_duration, 0.1)))
			goto fail;
	for (int r = 0; r < cfg.reps; r++) {
		char line[512];
		size_t len = 0;

		for (int k = 0; k < NLOADS; k++) {
			enum load ld = load_order[r][k];
			struct load_ctx L;
			pthread_t tid;
			double rate;

			if (load_start(&L, &tid, ld))
				goto fail;
			for (int j = 0; j < cfg.nprobes; j++) {
				int p = cfg.probes[(j + r) % cfg.nprobes];
				struct wprobe *wp = &wprobes[p];
				struct wakeup_summary sum;

				if (probe_run((enum probe)p, &w, cfg.wake_duration)) {
					load_stop(&L, tid, ld, &split_s_wakeup);
					goto fail;
				}
				wakeup_summarize(&w, &sum);
				/* at least 1 ns: the ratios take logs */
				wp->p50[ld][r] = fmax(sum.p50, 1);
				wp->p99[ld][r] = fmax(sum.p99, 1);
				wp->max[ld][r] = fmax(sum.max, 1);
				wp->wakeups[ld][r] = (double)w.n;
				wp->missed += w.missed;
				wp->timeouts += w.timeouts;
			}
			rate = load_stop(&L, tid, ld, &split_s_wakeup);
			for (int j = 0; j < cfg.nprobes; j++)
				wprobes[cfg.probes[j]].load_rate[ld][r] = rate;
		}
		for (int j = 0; j < cfg.nprobes && len < sizeof(line); j++) {
			const struct wprobe *wp = &wprobes[cfg.probes[j]];

			len += (size_t)snprintf(line + len, sizeof(line) - len, "%s%s p50 %.0f/%.0f/%.0f", j ? ", " : "",
						probe_names[cfg.probes[j]], wp->p50[LOAD_NONE][r],
						wp->p50[LOAD_ALIGNED][r], wp->p50[LOAD_SPLIT][r]);
		}
		progress("wake-up rep %d/%d on CPU %d: %s ns late (none/aligned/split)", r + 1, cfg.reps,
			 cfg.victim_cpu, line);
	}
	for (int j = 0; j < cfg.nprobes; j++) {
		const struct wprobe *wp = &wprobes[cfg.probes[j]];

		if (wp->timeouts)
			note("the %s probe's waiter timed out %llu times (no wake within a second): its waker fell "
			     "silent", probe_names[cfg.probes[j]], (unsigned long long)wp->timeouts);
	}
	if (wake_mlocked)
		munlockall();
	if (wake_fifo)
		set_fifo(0);
	free(buf);
	return 0;
fail:
	free(buf);
	return -1;
}

/* ---------------------------------------------------------------- output */

struct est {
	double est, lo, hi;
	int ci;
};

static struct est median_est(const double *v, int n)
{
	struct est e;

	e.ci = !reptest_median(v, n, ALPHA, &e.est, &e.lo, &e.hi);
	return e;
}

/* a / b over reps: Hodges-Lehmann on the logs, as slb-ratio. */
static struct est ratio_est(const double *a, const double *b, int n)
{
	double la[MAX_REPS], lb[MAX_REPS];
	struct est e;

	for (int i = 0; i < n; i++) {
		la[i] = log(a[i]);
		lb[i] = log(b[i]);
	}
	e.ci = !reptest_shift(la, n, lb, n, ALPHA, &e.est, &e.lo, &e.hi);
	e.est = exp(e.est);
	e.lo = exp(e.lo);
	e.hi = exp(e.hi);
	return e;
}

static void jnum(FILE *o, double v)
{
	if (isfinite(v))
		fprintf(o, "%.6g", v);
	else
		fputs("null", o);
}

static void jstr(FILE *o, const char *s)
{
	fputc('"', o);
	for (; *s; s++) {
		if (*s == '"' || *s == '\\')
			fprintf(o, "\\%c", *s);
		else if ((unsigned char)*s < 0x20)
			fprintf(o, "\\u%04x", *s);
		else
			fputc(*s, o);
	}
	fputc('"', o);
}

static void jci(FILE *o, const struct est *e)
{
	if (!e->ci) {
		fputs("null", o);
		return;
	}
	fputc('[', o);
	jnum(o, e->lo);
	fputs(", ", o);
	jnum(o, e->hi);
	fputc(']', o);
}

static void jreps(FILE *o, const double *v, int n)
{
	fputc('[', o);
	for (int i = 0; i < n; i++) {
		if (i)
			fputs(", ", o);
		jnum(o, v[i]);
	}
	fputc(']', o);
}

/* {"<key>": median, "ci95": [lo, hi] | null, "reps": [...]} */
static void jmeasure(FILE *o, const char *key, const double *v, int n)
{
	struct est e = median_est(v, n);

	fprintf(o, "{\"%s\": ", key);
	jnum(o, e.est);
	fputs(", \"ci95\": ", o);
	jci(o, &e);
	fputs(", \"reps\": ", o);
	jreps(o, v, n);
	fputc('}', o);
}

static void jratio(FILE *o, const double *a, const double *b, int n)
{
	struct est e = ratio_est(a, b, n);

	fputs("{\"ratio\": ", o);
	jnum(o, e.est);
	fputs(", \"ci95\": ", o);
	jci(o, &e);
	fputc('}', o);
}

/*
 * Per level, the point that stands for it: the arithmetic loop; for each
 * cache level the largest set at most half its size and larger than the
 * level below (else the smallest larger one that fits); for DRAM the
 * largest set past the last-level cache. -1 when no size falls there.
 */
static int level_point(int lv)
{
	uint64_t prev = lv > 0 ? mach.ci.c[lv - 1].bytes : 0, size;
	int best = -1;

	if (lv == mach.ci.n) {
		if (!mach.ci.n)
			return -1;
		for (int i = 0; i < npoints; i++)
			if (!points[i].arith && points[i].bytes > llc_bytes())
				best = i;
		return best;
	}
	size = mach.ci.c[lv].bytes;
	for (int i = 0; i < npoints; i++)
		if (!points[i].arith && points[i].bytes > prev && points[i].bytes <= size / 2)
			best = i;
	if (best >= 0)
		return best;
	for (int i = 0; i < npoints; i++)
		if (!points[i].arith && points[i].bytes > prev && points[i].bytes <= size)
			return i;
	return -1;
}

/* The wake-up probes: "wakeup": {..., "probes": [...]}, or null when none ran. */
static void write_wakeup_json(FILE *o, int n)
{
	static const char *const stats[3] = { "p50", "p99", "max" };

	if (!cfg.nprobes) {
		fputs("\n  \"wakeup\": null,", o);
		return;
	}
	fputs("\n  \"wakeup\": {\"interval_us\": ", o);
	jnum(o, cfg.wake_interval_us);
	fputs(", \"duration_s\": ", o);
	jnum(o, cfg.wake_duration);
	fprintf(o, ", \"sched\": \"%s\", \"mlocked\": %s, \"probes\": [", wake_fifo ? "SCHED_FIFO 95" : "SCHED_OTHER",
		wake_mlocked ? "true" : "false");
	for (int j = 0; j < cfg.nprobes; j++) {
		const struct wprobe *wp = &wprobes[cfg.probes[j]];
		const double(*v[3])[MAX_REPS] = { wp->p50, wp->p99, wp->max };
		static const int pairs[3][2] = { { LOAD_ALIGNED, LOAD_NONE }, { LOAD_SPLIT, LOAD_ALIGNED },
						 { LOAD_SPLIT, LOAD_NONE } };
		static const char *const pair_names[3] = { "aligned_over_none", "split_over_aligned", "split_over_none" };

		fprintf(o, "%s\n    {\"probe\": \"%s\", \"what\": ", j ? "," : "", probe_names[cfg.probes[j]]);
		jstr(o, probe_what[cfg.probes[j]]);
		for (int ld = 0; ld < NLOADS; ld++) {
			fprintf(o, ",\n     \"%s\": {\"wakeups\": ", load_names[ld]);
			jnum(o, median_of(wp->wakeups[ld], n));
			for (int s = 0; s < 3; s++) {
				fprintf(o, ", \"%s\": ", stats[s]);
				jmeasure(o, "ns", v[s][ld], n);
			}
			fputc('}', o);
		}
		fputs(",\n     \"load_ops_per_s\": {\"aligned\": ", o);
		jnum(o, median_of(wp->load_rate[LOAD_ALIGNED], n));
		fputs(", \"split\": ", o);
		jnum(o, median_of(wp->load_rate[LOAD_SPLIT], n));
		fputc('}', o);
		for (int q = 0; q < 3; q++) {
			fprintf(o, ",\n     \"%s\": {", pair_names[q]);
			for (int s = 0; s < 3; s++) {
				fprintf(o, "%s\"%s\": ", s ? ", " : "", stats[s]);
				jratio(o, v[s][pairs[q][0]], v[s][pairs[q][1]], n);
			}
			fputc('}', o);
		}
		fprintf(o, ",\n     \"missed\": %llu, \"timeouts\": %llu}", (unsigned long long)wp->missed,
			(unsigned long long)wp->timeouts);
	}
	fputs("\n  ]},", o);
}

static void write_json(FILE *o)
{
	int n = cfg.reps, first;

	fprintf(o, "{\n  \"tool\": \"" PROG "\",\n  \"schema\": 1,\n  \"machine\": {\"cpu_model\": ");
	jstr(o, mach.cpu_model);
	fputs(", \"vendor\": ", o);
	jstr(o, mach.vendor);
	fprintf(o, ", \"hypervisor\": %s, \"split_lock_detect\": %s, \"bus_lock_detect\": %s, \"kernel\": ",
		mach.hypervisor ? "true" : "false", mach.split_lock_detect ? "true" : "false",
		mach.bus_lock_detect ? "true" : "false");
	jstr(o, mach.kernel);
	fprintf(o, ", \"cpus_available\": %d, \"ram_bytes\": %llu, \"cache_source\": \"%s\", \"caches\": [",
		mach.cpus_available, (unsigned long long)mach.ram, mach.ci.source);
	for (int i = 0; i < mach.ci.n; i++) {
		fprintf(o, "%s{\"level\": %d, \"type\": \"%s\", \"bytes\": %llu, \"shared_cpus\": ", i ? ", " : "",
			mach.ci.c[i].level, mach.ci.c[i].type, (unsigned long long)mach.ci.c[i].bytes);
		jstr(o, mach.ci.c[i].shared);
		fputc('}', o);
	}
	fprintf(o, "]},\n  \"params\": {\"victim_cpu\": %d, \"load_cpu\": %d, \"reps\": %d, \"duration_s\": ",
		cfg.victim_cpu, cfg.load_cpu, n);
	jnum(o, cfg.duration);
	fputs(", \"issuer_ms\": ", o);
	jnum(o, cfg.issuer_ms);
	fprintf(o, ", \"load_form\": \"%s\", \"load_rate\": ", forms_all[cfg.load_form].name);
	jnum(o, cfg.load_rate);
	fputs(", \"max_split_s\": ", o);
	jnum(o, cfg.max_split_s);
	fprintf(o, ", \"seed\": %d, \"sizes\": [", SEED);
	for (int i = 0; i < cfg.nsizes; i++)
		fprintf(o, "%s%llu", i ? ", " : "", (unsigned long long)cfg.sizes[i]);
	fputs("], \"load_order\": [", o);
	for (int r = 0; r < n; r++)
		fprintf(o, "%s[\"%s\", \"%s\", \"%s\"]", r ? ", " : "", load_names[load_order[r][0]],
			load_names[load_order[r][1]], load_names[load_order[r][2]]);
	fputs("], \"forms\": [", o);
	for (int i = 0; i < cfg.nforms; i++)
		fprintf(o, "%s\"%s\"", i ? ", " : "", forms_all[cfg.forms[i]].name);
	fputs("]},\n  \"split_lock_s\": {\"victim\": ", o);
	jnum(o, split_s_victim);
	fputs(", \"issuer\": ", o);
	jnum(o, split_s_issuer);
	fputs(", \"wakeup\": ", o);
	jnum(o, split_s_wakeup);
	fputs(", \"total\": ", o);
	jnum(o, split_s_victim + split_s_issuer + split_s_wakeup);
	{
		double total, split;

		plan_seconds(&total, &split);
		fputs(", \"planned\": ", o);
		jnum(o, split);
	}
	fputs("},\n  \"issuer\": [", o);
	for (int k = 0; k < cfg.nforms; k++) {
		int fi = cfg.forms[k];
		const struct form *f = &forms_all[fi];

		fprintf(o, "%s\n    {\"form\": \"%s\", \"op\": \"%s\", \"size\": %d, \"aligned\": ", k ? "," : "",
			f->name, slb_op_name(f->op), f->size);
		jmeasure(o, "ns_per_op", issuer_ns[fi][0], n);
		if (slb_op_can_split(f->op)) {
			fputs(", \"split\": ", o);
			jmeasure(o, "ns_per_op", issuer_ns[fi][1], n);
			fputs(", \"split_over_aligned\": ", o);
			jratio(o, issuer_ns[fi][1], issuer_ns[fi][0], n);
			fputc('}', o);
		} else {
			fputs(", \"split\": null, \"split_over_aligned\": null, \"note\": \"no split form: "
			      "CMPXCHG16B needs a 16-byte aligned operand (#GP otherwise), which never crosses a "
			      "line\"}", o);
		}
	}
	fputs("\n  ],\n  \"victim\": [", o);
	for (int i = 0; i < npoints; i++) {
		const struct point *pt = &points[i];

		fprintf(o, "%s\n    {\"task\": \"%s\", \"bytes\": ", i ? "," : "", pt->arith ? "arith" : "chase");
		if (pt->arith)
			fputs("null", o);
		else
			fprintf(o, "%llu", (unsigned long long)pt->bytes);
		fprintf(o, ", \"level\": \"%s\", \"huge_pages\": %s", pt->level, pt->huge ? "true" : "false");
		for (int ld = 0; ld < NLOADS; ld++) {
			fprintf(o, ",\n     \"%s\": ", load_names[ld]);
			jmeasure(o, "ns_per_step", pt->ns[ld], n);
		}
		fputs(",\n     \"load_ops_per_s\": {\"aligned\": ", o);
		jnum(o, median_of(pt->load_rate[LOAD_ALIGNED], n));
		fputs(", \"split\": ", o);
		jnum(o, median_of(pt->load_rate[LOAD_SPLIT], n));
		fputs("},\n     \"aligned_over_none\": ", o);
		jratio(o, pt->ns[LOAD_ALIGNED], pt->ns[LOAD_NONE], n);
		fputs(", \"split_over_aligned\": ", o);
		jratio(o, pt->ns[LOAD_SPLIT], pt->ns[LOAD_ALIGNED], n);
		fputs(", \"split_over_none\": ", o);
		jratio(o, pt->ns[LOAD_SPLIT], pt->ns[LOAD_NONE], n);
		fputc('}', o);
	}
	fputs("\n  ],\n  \"levels\": [", o);
	first = 1;
	for (int lv = -1; lv <= mach.ci.n; lv++) {
		int pi = lv < 0 ? 0 : level_point(lv);
		const struct point *pt;

		if (pi < 0)
			continue;
		pt = &points[pi];
		fprintf(o, "%s\n    {\"level\": \"%s\", \"task\": \"%s\", \"bytes\": ", first ? "" : ",",
			lv < 0 ? "arith" : pt->level, pt->arith ? "arith" : "chase");
		first = 0;
		if (pt->arith)
			fputs("null", o);
		else
			fprintf(o, "%llu", (unsigned long long)pt->bytes);
		fputs(", \"ns_per_step\": {", o);
		for (int ld = 0; ld < NLOADS; ld++) {
			fprintf(o, "%s\"%s\": ", ld ? ", " : "", load_names[ld]);
			jnum(o, median_of(pt->ns[ld], n));
		}
		fputs("}, \"aligned_over_none\": ", o);
		jratio(o, pt->ns[LOAD_ALIGNED], pt->ns[LOAD_NONE], n);
		fputs(", \"split_over_aligned\": ", o);
		jratio(o, pt->ns[LOAD_SPLIT], pt->ns[LOAD_ALIGNED], n);
		fputc('}', o);
	}
	fputs("\n  ],", o);
	write_wakeup_json(o, n);
	fputs("\n  \"notes\": [", o);
	for (int i = 0; i < nnotes; i++) {
		fputs(i ? ", " : "", o);
		jstr(o, notes[i]);
	}
	fputs("]\n}\n", o);
}

/* v to 3 significant digits, without an exponent: 0.382, 5.02, 101, 60700. */
static const char *fmt_num(double v, char *buf, size_t len)
{
	if (!isfinite(v))
		snprintf(buf, len, "-");
	else if (fabs(v) >= 1000) {
		double p = pow(10, floor(log10(fabs(v))) - 2);

		snprintf(buf, len, "%.0f", round(v / p) * p);
	} else
		snprintf(buf, len, "%.3g", v);
	return buf;
}

/* "5.02 [4.98-5.1]" or "5.02" when no interval; "x1.5 [...]" for ratios. */
static const char *fmt_est(const struct est *e, int ratio, char *buf, size_t len)
{
	char a[32], b[32], c[32];

	if (!isfinite(e->est))
		snprintf(buf, len, "-");
	else if (e->ci)
		snprintf(buf, len, "%s%s [%s-%s]", ratio ? "x" : "", fmt_num(e->est, a, sizeof(a)),
			 fmt_num(e->lo, b, sizeof(b)), fmt_num(e->hi, c, sizeof(c)));
	else
		snprintf(buf, len, "%s%s", ratio ? "x" : "", fmt_num(e->est, a, sizeof(a)));
	return buf;
}

static void write_text(FILE *o)
{
	int n = cfg.reps;
	char a[64], b[64], c[64], d[64], e[64];

	fprintf(o, PROG " on %s (%s), kernel %s\n", mach.cpu_model,
		mach.hypervisor ? "a virtual machine: CPUID hypervisor flag set" : "no hypervisor flag", mach.kernel);
	fprintf(o, "victim CPU %d, load CPU %d; caches (%s):", cfg.victim_cpu, cfg.load_cpu, mach.ci.source);
	for (int i = 0; i < mach.ci.n; i++)
		fprintf(o, " L%d %s %s%s", mach.ci.c[i].level, mach.ci.c[i].type, size_str(mach.ci.c[i].bytes),
			i + 1 < mach.ci.n ? "," : "");
	fprintf(o, "\n%d reps, interleaved; medians with 95 %% intervals in brackets; ratios: Hodges-Lehmann "
		"over reps\n\n", n);
	fprintf(o, "Issuer: ns per LOCKed operation on CPU %d (CPU %d idle)\n", cfg.load_cpu, cfg.victim_cpu);
	fprintf(o, "%-11s %-26s %-30s %s\n", "form", "aligned ns", "split ns", "split/aligned");
	for (int k = 0; k < cfg.nforms; k++) {
		int fi = cfg.forms[k];
		struct est ea = median_est(issuer_ns[fi][0], n), es, er;

		if (!slb_op_can_split(forms_all[fi].op)) {
			fprintf(o, "%-11s %-26s %s\n", forms_all[fi].name, fmt_est(&ea, 0, a, sizeof(a)),
				"(no split form: #GP unless 16-byte aligned)");
			continue;
		}
		es = median_est(issuer_ns[fi][1], n);
		er = ratio_est(issuer_ns[fi][1], issuer_ns[fi][0], n);
		fprintf(o, "%-11s %-26s %-30s %s\n", forms_all[fi].name, fmt_est(&ea, 0, a, sizeof(a)),
			fmt_est(&es, 0, b, sizeof(b)), fmt_est(&er, 1, c, sizeof(c)));
	}
	fprintf(o, "\nVictim: ns per step on CPU %d under a load on CPU %d (lock %s, %s)\n", cfg.victim_cpu,
		cfg.load_cpu, forms_all[cfg.load_form].name, cfg.load_rate > 0 ? "rate-limited" : "flat out");
	fprintf(o, "%-5s %-9s %-5s %-24s %-24s %-24s %-24s %s\n", "task", "set", "level", "none", "aligned", "split",
		"aligned/none", "split/aligned");
	for (int i = 0; i < npoints; i++) {
		const struct point *pt = &points[i];
		struct est en = median_est(pt->ns[LOAD_NONE], n), ea = median_est(pt->ns[LOAD_ALIGNED], n);
		struct est es = median_est(pt->ns[LOAD_SPLIT], n);
		struct est r1 = ratio_est(pt->ns[LOAD_ALIGNED], pt->ns[LOAD_NONE], n);
		struct est r2 = ratio_est(pt->ns[LOAD_SPLIT], pt->ns[LOAD_ALIGNED], n);

		fprintf(o, "%-5s %-9s %-5s %-24s %-24s %-24s %-24s %s\n", pt->arith ? "arith" : "chase",
			pt->arith ? "-" : size_str(pt->bytes), pt->level, fmt_est(&en, 0, a, sizeof(a)),
			fmt_est(&ea, 0, b, sizeof(b)), fmt_est(&es, 0, c, sizeof(c)), fmt_est(&r1, 1, d, sizeof(d)),
			fmt_est(&r2, 1, e, sizeof(e)));
	}
	fprintf(o, "\nBy level (split/aligned; aligned/none):\n");
	for (int lv = -1; lv <= mach.ci.n; lv++) {
		int pi = lv < 0 ? 0 : level_point(lv);
		struct est r1, r2;

		if (pi < 0)
			continue;
		r1 = ratio_est(points[pi].ns[LOAD_SPLIT], points[pi].ns[LOAD_ALIGNED], n);
		r2 = ratio_est(points[pi].ns[LOAD_ALIGNED], points[pi].ns[LOAD_NONE], n);
		fprintf(o, "  %-5s %-9s split/aligned %-24s aligned/none %s\n", lv < 0 ? "arith" : points[pi].level,
			points[pi].arith ? "" : size_str(points[pi].bytes), fmt_est(&r1, 1, a, sizeof(a)),
			fmt_est(&r2, 1, b, sizeof(b)));
	}
	if (cfg.nprobes) {
		static const char *const stats[3] = { "p50", "p99", "max" };

		fprintf(o, "\nWake-up: ns late, a %s thread on CPU %d woken every %g us under a load on CPU %d "
			"(timer: clock_nanosleep, as cyclictest; futex: woken from CPU %d); per rep, %g s\n",
			wake_fifo ? "SCHED_FIFO 95" : "SCHED_OTHER", cfg.victim_cpu, cfg.wake_interval_us, cfg.load_cpu,
			cfg.load_cpu, cfg.wake_duration);
		fprintf(o, "%-5s %-4s %-24s %-24s %-24s %-24s %s\n", "probe", "stat", "none", "aligned", "split",
			"aligned/none", "split/aligned");
		for (int j = 0; j < cfg.nprobes; j++) {
			const struct wprobe *wp = &wprobes[cfg.probes[j]];
			const double(*v[3])[MAX_REPS] = { wp->p50, wp->p99, wp->max };

			for (int st = 0; st < 3; st++) {
				struct est en = median_est(v[st][LOAD_NONE], n), ea = median_est(v[st][LOAD_ALIGNED], n);
				struct est es = median_est(v[st][LOAD_SPLIT], n);
				struct est r1 = ratio_est(v[st][LOAD_ALIGNED], v[st][LOAD_NONE], n);
				struct est r2 = ratio_est(v[st][LOAD_SPLIT], v[st][LOAD_ALIGNED], n);

				fprintf(o, "%-5s %-4s %-24s %-24s %-24s %-24s %s\n", probe_names[cfg.probes[j]], stats[st],
					fmt_est(&en, 0, a, sizeof(a)), fmt_est(&ea, 0, b, sizeof(b)),
					fmt_est(&es, 0, c, sizeof(c)), fmt_est(&r1, 1, d, sizeof(d)),
					fmt_est(&r2, 1, e, sizeof(e)));
			}
		}
	}
	{
		double rates[MAX_SIZES + 1], srate[MAX_SIZES + 1];

		for (int i = 0; i < npoints; i++) {
			rates[i] = median_of(points[i].load_rate[LOAD_ALIGNED], n);
			srate[i] = median_of(points[i].load_rate[LOAD_SPLIT], n);
		}
		char a1[32], a2[32];

		fprintf(o, "\nThe load ran %s aligned and %s split ops/s (medians over the victim's runs); "
			"split locks ran %.1f s in all (victim %.1f s, issuer %.1f s, wake-up %.1f s)\n",
			fmt_num(median_of(rates, npoints), a1, sizeof(a1)),
			fmt_num(median_of(srate, npoints), a2, sizeof(a2)),
			split_s_victim + split_s_issuer + split_s_wakeup, split_s_victim, split_s_issuer, split_s_wakeup);
	}
	for (int i = 0; i < nnotes; i++)
		fprintf(o, "note: %s\n", notes[i]);
}

/* ------------------------------------------------------------------ main */

int main(int argc, char **argv)
{
	enum { OPT_ISSUER = 256, OPT_FORMS, OPT_LOAD_FORM, OPT_LOAD_RATE, OPT_MAX_SPLIT, OPT_SYSFS, OPT_VALIDATE, OPT_LOG,
	       OPT_WAKEUP, OPT_WAKE_INTERVAL, OPT_WAKE_DURATION };
	static const struct option opts[] = {
		{ "duration", required_argument, NULL, 'd' },
		{ "reps", required_argument, NULL, 'r' },
		{ "sizes", required_argument, NULL, 's' },
		{ "cpus", required_argument, NULL, 'c' },
		{ "issuer-ms", required_argument, NULL, OPT_ISSUER },
		{ "forms", required_argument, NULL, OPT_FORMS },
		{ "load-form", required_argument, NULL, OPT_LOAD_FORM },
		{ "load-rate", required_argument, NULL, OPT_LOAD_RATE },
		{ "max-split-s", required_argument, NULL, OPT_MAX_SPLIT },
		{ "wakeup", required_argument, NULL, OPT_WAKEUP },
		{ "wakeup-interval", required_argument, NULL, OPT_WAKE_INTERVAL },
		{ "wakeup-duration", required_argument, NULL, OPT_WAKE_DURATION },
		{ "json", no_argument, NULL, 'j' },
		{ "json-out", required_argument, NULL, 'o' },
		{ "sysfs", required_argument, NULL, OPT_SYSFS },
		{ "log", required_argument, NULL, OPT_LOG },
		{ "validate", no_argument, NULL, OPT_VALIDATE },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *cpus_text = NULL, *log_path = NULL;
	double d, total_s, split_s;
	int c, rc;
	FILE *jf = NULL;

	cfg = (struct config){ .duration = DEF_DURATION, .reps = DEF_REPS, .issuer_ms = DEF_ISSUER_MS,
			       .max_split_s = DEF_MAX_SPLIT_S, .wake_interval_us = DEF_WAKE_INTERVAL_US,
			       .wake_duration = -1 };
	parse_forms("all");
	parse_probes("all");
	parse_sizes("auto");
	while ((c = getopt_long(argc, argv, "d:r:s:c:jo:h", opts, NULL)) != -1) {
		switch (c) {
		case 'd':
			if (num_parse(PROG, "--duration", optarg, 0.001, 60, 0, &cfg.duration))
				return 2;
			break;
		case 'r':
			if (num_parse(PROG, "--reps", optarg, 1, MAX_REPS, 1, &d))
				return 2;
			cfg.reps = (int)d;
			break;
		case 's':
			if (parse_sizes(optarg))
				return 2;
			break;
		case 'c': cpus_text = optarg; break;
		case OPT_ISSUER:
			if (num_parse(PROG, "--issuer-ms", optarg, 0.1, 10000, 0, &cfg.issuer_ms))
				return 2;
			break;
		case OPT_FORMS:
			if (parse_forms(optarg))
				return 2;
			break;
		case OPT_LOAD_FORM:
			if ((cfg.load_form = find_form("--load-form", optarg)) < 0)
				return 2;
			if (!slb_op_can_split(forms_all[cfg.load_form].op)) {
				fprintf(stderr, PROG ": --load-form '%s' has no split form; the load needs one\n", optarg);
				return 2;
			}
			break;
		case OPT_LOAD_RATE:
			if (num_parse(PROG, "--load-rate", optarg, 0, 1e9, 0, &cfg.load_rate))
				return 2;
			break;
		case OPT_MAX_SPLIT:
			if (num_parse(PROG, "--max-split-s", optarg, 0.01, 3600, 0, &cfg.max_split_s))
				return 2;
			break;
		case OPT_WAKEUP:
			if (parse_probes(optarg))
				return 2;
			break;
		case OPT_WAKE_INTERVAL:
			if (num_parse(PROG, "--wakeup-interval", optarg, 50, 1000000, 0, &cfg.wake_interval_us))
				return 2;
			break;
		case OPT_WAKE_DURATION:
			if (num_parse(PROG, "--wakeup-duration", optarg, 0.001, 60, 0, &cfg.wake_duration))
				return 2;
			break;
		case 'j': cfg.json = 1; break;
		case 'o': cfg.json_out = optarg; break;
		case OPT_SYSFS: cfg.sysroot = optarg; break;
		case OPT_LOG: log_path = optarg; break;
		case OPT_VALIDATE: cfg.validate = 1; break;
		case 'h': usage(stdout); return 0;
		default: usage(stderr); return 2;
		}
	}
	if (optind < argc) {
		fprintf(stderr, PROG ": unexpected argument '%s' (see --help)\n", argv[optind]);
		return 2;
	}
	if (cfg.wake_duration < 0)
		cfg.wake_duration = cfg.duration;
	read_machine();
	if ((rc = pick_cpus(cpus_text)))
		return rc;
	if (cacheinfo_read(cfg.sysroot, cfg.victim_cpu, &mach.ci) && !cfg.nsizes) {
		fprintf(stderr, PROG ": no cache sizes for CPU %d in %s/devices/system/cpu or sysconf; give --sizes\n",
			cfg.victim_cpu, cfg.sysroot ? cfg.sysroot : "/sys");
		return 1;
	}
	if ((rc = plan_sizes()))
		return rc;
	plan_seconds(&total_s, &split_s);
	if (split_s > cfg.max_split_s) {
		fprintf(stderr, PROG ": the plan holds %.1f s of split locks, more than --max-split-s %g (they slow "
			"every CPU of this machine): lower --reps, --duration or --sizes, or raise --max-split-s\n",
			split_s, cfg.max_split_s);
		return 2;
	}
	if (log_path && !(log_file = fopen(log_path, "w"))) {
		fprintf(stderr, PROG ": cannot write %s: %s\n", log_path, strerror(errno));
		return 1;
	}
	t_start = victim_now_ns();
	progress("plan: victim CPU %d, load CPU %d; arith + %d working sets (%s to %s) x %d loads x %d reps x %g s; "
		 "issuer %d forms x %d reps x %g ms; wake-up %d probe%s x %d loads x %d reps x %g s every %g us: "
		 "about %.0f s, %.1f s of it under split locks", cfg.victim_cpu,
		 cfg.load_cpu, cfg.nsizes, size_str(cfg.sizes[0]), size_str(cfg.sizes[cfg.nsizes - 1]), NLOADS,
		 cfg.reps, cfg.duration, cfg.nforms, cfg.reps, cfg.issuer_ms, cfg.nprobes, cfg.nprobes == 1 ? "" : "s",
		 NLOADS, cfg.reps, cfg.wake_duration, cfg.wake_interval_us, total_s, split_s);
	if (cfg.validate)
		return 0;
	if (cfg.json_out && !(jf = fopen(cfg.json_out, "w"))) {
		fprintf(stderr, PROG ": cannot write %s: %s\n", cfg.json_out, strerror(errno));
		return 1;
	}
	if (mach.hypervisor)
		note("this machine is a virtual machine (CPUID hypervisor flag): real hardware seen through a "
		     "hypervisor, which may trap split locks (each then costs its issuer an exit) and shares the "
		     "caches with other guests");
	if (cfg.load_rate > 0)
		note("the victim's load was rate-limited to %g ops/s", cfg.load_rate);
	npoints = 1 + cfg.nsizes;
	points = calloc((size_t)npoints, sizeof(*points));
	if (!points) {
		fprintf(stderr, PROG ": out of memory\n");
		return 1;
	}
	for (int r = 0; r < cfg.reps; r++)
		for (int k = 0; k < NLOADS; k++)
			load_order[r][k] = (enum load)((k + r) % NLOADS);
	points[0].arith = 1;
	snprintf(points[0].level, sizeof(points[0].level), "-");
	for (int i = 1; i < npoints; i++) {
		points[i].bytes = cfg.sizes[i - 1];
		level_of(points[i].bytes, points[i].level, sizeof(points[i].level));
	}
	if (run_issuer() || run_victim(total_s) || run_wakeup())
		return 1;
	for (int k = 0; k < cfg.nforms; k++) {
		int fi = cfg.forms[k];
		double ns = slb_op_can_split(forms_all[fi].op) ? median_of(issuer_ns[fi][1], cfg.reps) : 0;

		if (ns > 10000) {
			note("a split LOCK costs its issuer %.0f us here (%s), far above the microsecond or so "
			     "of a bare-metal bus lock: most likely each one traps to the hypervisor (#AC from the host's "
			     "split-lock detection) and the victim sees how it handles them", ns / 1000,
			     forms_all[fi].name);
			break;
		}
	}
	if (jf) {
		write_json(jf);
		if (fclose(jf)) {
			fprintf(stderr, PROG ": cannot write %s: %s\n", cfg.json_out, strerror(errno));
			return 1;
		}
	}
	if (cfg.json)
		write_json(stdout);
	else
		write_text(stdout);
	progress("done: %.1f s of split locks", split_s_victim + split_s_issuer + split_s_wakeup);
	return 0;
}
