// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * slb-trace: summarise one rep's trace of cyclictest's wake-up path (the
 * text of tracefs' "trace" file, trace_clock mono, as the study job's
 * slb_trace_stop saves it). Each wake-up is followed from the
 * hrtimer_start of cyclictest's sleep (function hrtimer_wakeup) through
 * its hrtimer_expire_entry (the CPU the timer fired on, and the task that
 * interrupt stopped there), sched_wakeup (the waking CPU), an
 * ipi_send_cpu/ipi_send_cpumask to cyclictest's CPU, to the sched_switch
 * that runs cyclictest again. The latency of a wake-up is that switch's
 * time less the timer's expiry: the path up to cyclictest's own clock
 * read. slb-load's trace_marker lines ("slb-load: split on" / "off" on a
 * CPU) say where its split-lock loop ran: an expiry that interrupted a
 * load thread inside one is counted "in a split lock".
 *
 * Prints where the timer was armed and fired, how the task was woken
 * (local expiry, or a reschedule IPI from another CPU), latency per way,
 * and the N worst wake-ups with what happened on the way; --excerpt FILE
 * writes their raw trace lines. Runs in the guest (static), natively and
 * on the host.
 *
 * Exit status: 0 summarised, 1 unreadable input or no wake-up of the
 * task in it, 2 usage error.
 */
#include "../lib/io.h"
#include "../lib/num.h"

#include <errno.h>
#include <getopt.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_CPUS 256
#define MAX_TASKS 64
#define MAX_WORST 1000
#define EXCERPT_LINES 60
#define IRQ_TEXT 160

enum how { HOW_LOCAL, HOW_IPI, HOW_REMOTE, HOW_N };
static const char *const how_names[HOW_N] = { "local", "ipi", "remote" };

struct line {
	char comm[32];
	int pid, cpu;
	int64_t ts;		/* ns, trace_clock */
	char event[48];
	const char *rest;	/* the event's fields, up to the end of line */
	size_t rest_len;
};

/* One wake-up of a task, from the arming of its sleep to its switch-in. */
struct wake {
	int64_t armed_ts, expires, fired_ts, woken_ts, ipi_ts, switch_ts;
	int armed_cpu, fired_cpu, woken_cpu, ipi_from, switch_cpu;
	int how, interrupted_load, in_split_lock;
	char interrupted[32], ipi_callsite[48], prev[32];
	char irqs[IRQ_TEXT];
};

struct task {
	int pid, active;
	char hrtimer[32];
	struct wake w;
};

struct ipi_seen {
	int64_t ts;
	int from;
	char callsite[48];
};

static struct task tasks[MAX_TASKS];
static int ntasks;
static struct ipi_seen last_ipi[MAX_CPUS];
static int lock_on[MAX_CPUS];
static struct wake *wakes;
static size_t nwakes, capwakes;
static uint64_t nevents, nmarkers, incomplete;
static int64_t first_ts = -1, last_ts;
static const char *comm = "cyclictest", *load_comm = "slb-load", *cpus;
static int soft;

static void usage(FILE *out)
{
	fprintf(out,
		"Usage: slb-trace [options] [TRACE]\n"
		"Summarise cyclictest's wake-up path in a tracefs text trace (TRACE, or\n"
		"standard input): where its timer was armed and fired, how it was woken\n"
		"(local expiry or a reschedule IPI), and the worst wake-ups.\n\n"
		"  -n, --worst N        worst wake-ups to list, 0 to %d (default 10)\n"
		"  -e, --excerpt FILE   write the raw lines of the worst wake-ups to FILE\n"
		"  -c, --cpus LIST      only sleeps armed on these CPUs (the measured ones,\n"
		"                       e.g. 1 or 1-3,5; default all: cyclictest's main\n"
		"                       thread sleeps too)\n"
		"      --soft           also sleeps of soft hrtimers (default: HARD only, an RT\n"
		"                       task's: not cyclictest's sleeps before it turns RT)\n"
		"      --comm NAME      the measured task's command (default cyclictest)\n"
		"      --load-comm NAME the load's command (default slb-load)\n"
		"  -j, --json           JSON output\n"
		"  -t, --text FILE      with --json: the text summary to FILE too (one read\n"
		"                       of the trace for both)\n"
		"  -h, --help           this text\n\n"
		"The trace needs the events timer:hrtimer_start, timer:hrtimer_expire_entry,\n"
		"sched:sched_wakeup, sched:sched_switch and ipi:ipi_send_cpu (or\n"
		"ipi_send_cpumask); irq entries and slb-load's markers add detail.\n"
		"Exit status: 0 summarised, 1 unreadable input or no wake-up of the task,\n"
		"2 usage error.\n",
		MAX_WORST);
}

/* ts "SSSS.FFFFFF" (any number of fraction digits) in ns; -1 if none. */
static int64_t parse_ts(const char *s, const char *end)
{
	int64_t sec = 0, frac = 0, scale = 1000000000;
	const char *p = s;

	if (p >= end || *p < '0' || *p > '9')
		return -1;
	while (p < end && *p >= '0' && *p <= '9')
		sec = sec * 10 + (*p++ - '0');
	if (p >= end || *p != '.')
		return -1;
	for (p++; p < end && *p >= '0' && *p <= '9'; p++) {
		scale /= 10;
		frac = frac * 10 + (*p - '0');
	}
	if (!scale)
		return -1;
	return sec * 1000000000 + frac * scale;
}

/*
 * "  comm-pid   [003] d.h1.  123.456789: event: fields": fill l; 0 if the
 * line is no event.
 */
static int parse_line(const char *s, size_t len, struct line *l)
{
	const char *end = s + len, *b = NULL, *p, *q, *dash;
	size_t n;

	for (p = s; p + 3 < end; p++) {
		if (p[0] == ' ' && p[1] == '[' && p[2] >= '0' && p[2] <= '9') {
			for (q = p + 2; q < end && *q >= '0' && *q <= '9'; q++)
				;
			if (q < end && *q == ']') {
				b = p;
				break;
			}
		}
	}
	if (!b)
		return 0;
	for (p = s; p < b && *p == ' '; p++)
		;
	for (dash = b - 1; dash > p && *dash != '-'; dash--)
		;
	if (dash <= p)
		return 0;
	n = (size_t)(dash - p) < sizeof(l->comm) - 1 ? (size_t)(dash - p) : sizeof(l->comm) - 1;
	memcpy(l->comm, p, n);
	l->comm[n] = 0;
	l->pid = atoi(dash + 1);
	l->cpu = atoi(b + 2);
	/* the tokens after "]": [flags] ts: event: */
	p = strchr(b, ']') + 1;
	l->ts = -1;
	while (p < end) {
		while (p < end && *p == ' ')
			p++;
		for (q = p; q < end && *q != ' '; q++)
			;
		if (q > p && q[-1] == ':' && (l->ts = parse_ts(p, q - 1)) >= 0) {
			p = q;
			break;
		}
		p = q;
	}
	if (l->ts < 0)
		return 0;
	while (p < end && *p == ' ')
		p++;
	for (q = p; q < end && *q != ':' && *q != ' '; q++)
		;
	if (q >= end || *q != ':')
		return 0;
	n = (size_t)(q - p) < sizeof(l->event) - 1 ? (size_t)(q - p) : sizeof(l->event) - 1;
	memcpy(l->event, p, n);
	l->event[n] = 0;
	for (p = q + 1; p < end && *p == ' '; p++)
		;
	l->rest = p;
	l->rest_len = (size_t)(end - p);
	return l->cpu >= 0 && l->cpu < MAX_CPUS;
}

/* The value of KEY=value among l's fields into buf; 0 when absent. */
static int field(const struct line *l, const char *key, char *buf, size_t size)
{
	size_t k = strlen(key), n;
	const char *p = l->rest, *end = l->rest + l->rest_len, *q;

	for (; p + k < end; p++) {
		if ((p == l->rest || p[-1] == ' ') && !strncmp(p, key, k) && p[k] == '=') {
			p += k + 1;
			for (q = p; q < end && *q != ' '; q++)
				;
			n = (size_t)(q - p) < size - 1 ? (size_t)(q - p) : size - 1;
			memcpy(buf, p, n);
			buf[n] = 0;
			return 1;
		}
	}
	return 0;
}

static int field_int(const struct line *l, const char *key, long long *v)
{
	char buf[32], *e;

	if (!field(l, key, buf, sizeof(buf)))
		return 0;
	*v = strtoll(buf, &e, 10);
	return e != buf;
}

/* The function name of a %ps/%pS field: up to "+0x". */
static void symbol(char *s)
{
	char *plus = strchr(s, '+');

	if (plus)
		*plus = 0;
}

static struct task *task_of(int pid, int add)
{
	for (int i = 0; i < ntasks; i++)
		if (tasks[i].pid == pid)
			return &tasks[i];
	if (!add || ntasks == MAX_TASKS)
		return NULL;
	tasks[ntasks] = (struct task){ .pid = pid };
	return &tasks[ntasks++];
}

static struct task *task_of_hrtimer(const char *h)
{
	for (int i = 0; i < ntasks; i++)
		if (tasks[i].active && !strcmp(tasks[i].hrtimer, h))
			return &tasks[i];
	return NULL;
}

static int keep(const struct wake *w)
{
	if (nwakes == capwakes) {
		size_t cap = capwakes ? capwakes * 2 : 4096;
		struct wake *nw = realloc(wakes, cap * sizeof(*nw));

		if (!nw)
			return -1;
		wakes = nw;
		capwakes = cap;
	}
	wakes[nwakes++] = *w;
	return 0;
}

/* A CPU set "0-2,5" (ipi_send_cpumask): is cpu in it? */
static int in_cpulist(const char *s, int cpu)
{
	while (*s) {
		char *e;
		long lo = strtol(s, &e, 10), hi = lo;

		if (e == s)
			return 0;
		if (*e == '-')
			hi = strtol(e + 1, &e, 10);
		if (cpu >= lo && cpu <= hi)
			return 1;
		s = *e == ',' ? e + 1 : e;
		if (*e != ',')
			break;
	}
	return 0;
}

static void note_ipi(const struct line *l, int to)
{
	char cs[48] = "";

	if (to < 0 || to >= MAX_CPUS)
		return;
	field(l, "callsite", cs, sizeof(cs));
	symbol(cs);
	last_ipi[to].ts = l->ts;
	last_ipi[to].from = l->cpu;
	snprintf(last_ipi[to].callsite, sizeof(last_ipi[to].callsite), "%s", cs);
}

static int event(const struct line *l)
{
	char buf[64], h[32];
	long long v;
	struct task *t;

	nevents++;
	if (first_ts < 0)
		first_ts = l->ts;
	last_ts = l->ts;
	if (!strcmp(l->event, "hrtimer_start")) {
		if (strcmp(l->comm, comm) || !field(l, "function", buf, sizeof(buf)) ||
		    strcmp(buf, "hrtimer_wakeup") || !field(l, "hrtimer", h, sizeof(h)) ||
		    !field_int(l, "expires", &v) || (cpus && !in_cpulist(cpus, l->cpu)) ||
		    (!soft && (!field(l, "mode", buf, sizeof(buf)) || !strstr(buf, "HARD"))) || !(t = task_of(l->pid, 1)))
			return 0;
		if (t->active)
			incomplete++;
		t->active = 1;
		snprintf(t->hrtimer, sizeof(t->hrtimer), "%s", h);
		t->w = (struct wake){ .armed_ts = l->ts, .armed_cpu = l->cpu, .expires = v, .fired_cpu = -1,
				      .woken_cpu = -1, .ipi_from = -1, .switch_cpu = -1 };
	} else if (!strcmp(l->event, "hrtimer_expire_entry")) {
		if (!field(l, "hrtimer", h, sizeof(h)) || !(t = task_of_hrtimer(h)) || t->w.fired_cpu >= 0)
			return 0;
		t->w.fired_ts = l->ts;
		t->w.fired_cpu = l->cpu;
		snprintf(t->w.interrupted, sizeof(t->w.interrupted), "%s", l->comm);
		t->w.interrupted_load = !strcmp(l->comm, load_comm);
		t->w.in_split_lock = t->w.interrupted_load && lock_on[l->cpu];
	} else if (!strcmp(l->event, "sched_wakeup")) {
		if (!field_int(l, "pid", &v) || !(t = task_of((int)v, 0)) || !t->active || t->w.fired_cpu < 0 ||
		    t->w.woken_cpu >= 0)
			return 0;
		t->w.woken_ts = l->ts;
		t->w.woken_cpu = l->cpu;
	} else if (!strcmp(l->event, "ipi_send_cpu")) {
		if (field_int(l, "cpu", &v))
			note_ipi(l, (int)v);
	} else if (!strcmp(l->event, "ipi_send_cpumask")) {
		if (field(l, "cpumask", buf, sizeof(buf)))
			for (int c = 0; c < MAX_CPUS; c++)
				if (in_cpulist(buf, c))
					note_ipi(l, c);
	} else if (!strcmp(l->event, "sched_switch")) {
		if (!field_int(l, "next_pid", &v) || !(t = task_of((int)v, 0)) || !t->active || t->w.woken_cpu < 0)
			return 0;
		t->w.switch_ts = l->ts;
		t->w.switch_cpu = l->cpu;
		field(l, "prev_comm", t->w.prev, sizeof(t->w.prev));
		if (t->w.fired_cpu == l->cpu) {
			t->w.how = HOW_LOCAL;
		} else if (last_ipi[l->cpu].ts >= t->w.fired_ts && last_ipi[l->cpu].from == t->w.woken_cpu) {
			/* sent between the expiry and the switch: the waking CPU
			 * sends it in wakeup_preempt, before sched_wakeup */
			t->w.how = HOW_IPI;
			t->w.ipi_ts = last_ipi[l->cpu].ts;
			t->w.ipi_from = last_ipi[l->cpu].from;
			snprintf(t->w.ipi_callsite, sizeof(t->w.ipi_callsite), "%s", last_ipi[l->cpu].callsite);
		} else {
			t->w.how = HOW_REMOTE;
		}
		t->active = 0;
		return keep(&t->w);
	} else if (!strcmp(l->event, "tracing_mark_write")) {
		/* "slb-load: MODE on" / "slb-load: MODE off" */
		char msg[64];
		size_t n = l->rest_len < sizeof(msg) - 1 ? l->rest_len : sizeof(msg) - 1;

		memcpy(msg, l->rest, n);
		msg[n] = 0;
		while (n && (msg[n - 1] == '\n' || msg[n - 1] == ' '))
			msg[--n] = 0;
		if (!strncmp(msg, "slb-load: ", 10)) {
			nmarkers++;
			lock_on[l->cpu] = !strcmp(msg + 10, "split on");
		}
	}
	return 0;
}

static int by_latency(const void *a, const void *b)
{
	const struct wake *x = *(const struct wake *const *)a, *y = *(const struct wake *const *)b;
	int64_t lx = x->switch_ts - x->expires, ly = y->switch_ts - y->expires;

	if (lx != ly)
		return lx < ly ? 1 : -1;
	return x->expires < y->expires ? -1 : x->expires > y->expires;
}

/* The irq entries on the way (expiry to switch-in), appended to w->irqs. */
static void add_irq(struct wake *w, const struct line *l)
{
	char name[32] = "", item[48];
	size_t len = strlen(w->irqs);

	if (!strcmp(l->event, "irq_handler_entry")) {
		if (!field(l, "name", name, sizeof(name)))
			snprintf(name, sizeof(name), "irq");
	} else {
		size_t n = strlen(l->event);

		if (n < 7 || strcmp(l->event + n - 6, "_entry") || !strcmp(l->event, "hrtimer_expire_entry"))
			return;
		snprintf(name, sizeof(name), "%.*s", (int)(n - 6), l->event);
	}
	snprintf(item, sizeof(item), "%scpu%d:%s", len ? " " : "", l->cpu, name);
	if (len + strlen(item) < sizeof(w->irqs) - 4)
		strcat(w->irqs, item);
	else if (len < sizeof(w->irqs) - 4 && strcmp(w->irqs + len - 3, "..."))
		strcat(w->irqs, " ...");
}

/*
 * Pass 2, one read for all of them: the irq entries and raw lines of the
 * worst wake-ups (their hrtimer_start, then every line from just before
 * the expiry to the switch, at most EXCERPT_LINES).
 */
struct span {
	const char *p;
	int len;
};

static int detail(const char *buf, size_t len, struct wake **worst, int n, FILE *ex)
{
	struct span(*lines)[EXCERPT_LINES + 1] = NULL;
	int stored[MAX_WORST] = { 0 }, windowed[MAX_WORST] = { 0 };
	int64_t first = INT64_MAX, last = INT64_MIN;
	const char *p = buf, *end = buf + len;
	struct line l;

	if (ex && n && !(lines = calloc((size_t)n, sizeof(*lines))))
		return -1;
	for (int k = 0; k < n; k++) {
		worst[k]->irqs[0] = 0;
		if (worst[k]->armed_ts < first)
			first = worst[k]->armed_ts;
		if (worst[k]->switch_ts > last)
			last = worst[k]->switch_ts;
	}
	for (const char *next; p < end; p = next) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		int ll = (int)(nl ? nl - p : end - p);

		next = nl ? nl + 1 : end;
		if (*p == '#' || !parse_line(p, (size_t)ll, &l) || l.ts < first)
			continue;
		if (l.ts > last)
			break;
		for (int k = 0; k < n; k++) {
			struct wake *w = worst[k];
			int keep_line = 0;

			if (l.ts == w->armed_ts && l.cpu == w->armed_cpu && !strcmp(l.event, "hrtimer_start"))
				keep_line = 1;
			if (l.ts >= w->expires - 1000 && l.ts <= w->switch_ts) {
				add_irq(w, &l);
				keep_line = windowed[k]++ < EXCERPT_LINES;
			}
			if (lines && keep_line && stored[k] <= EXCERPT_LINES)
				lines[k][stored[k]++] = (struct span){ p, ll };
		}
	}
	for (int k = 0; ex && k < n; k++) {
		fprintf(ex, "## worst %d: latency %.3f us, cpu%d, timer fired on cpu%d, woken %s\n", k + 1,
			(double)(worst[k]->switch_ts - worst[k]->expires) / 1e3, worst[k]->switch_cpu,
			worst[k]->fired_cpu, how_names[worst[k]->how]);
		for (int i = 0; i < stored[k]; i++)
			fprintf(ex, "%.*s\n", lines[k][i].len, lines[k][i].p);
		fputc('\n', ex);
	}
	free(lines);
	return 0;
}

struct lat_stat { uint64_t n; double sum, max, fsum, fmax; };

static void stat_add(struct lat_stat *s, double lat, double fdelay)
{
	s->n++;
	s->sum += lat;
	s->fsum += fdelay;
	if (lat > s->max || s->n == 1)
		s->max = lat;
	if (fdelay > s->fmax || s->n == 1)
		s->fmax = fdelay;
}

static void json_counts(FILE *o, const char *key, const uint64_t *c, int last)
{
	int first = 1;

	fprintf(o, "  \"%s\": {", key);
	for (int i = 0; i < MAX_CPUS; i++) {
		if (!c[i])
			continue;
		fprintf(o, "%s\"%d\": %llu", first ? "" : ", ", i, (unsigned long long)c[i]);
		first = 0;
	}
	fprintf(o, "}%s\n", last ? "" : ",");
}

static void text_counts(FILE *o, const char *what, const uint64_t *c)
{
	fprintf(o, "%-22s", what);
	for (int i = 0; i < MAX_CPUS; i++)
		if (c[i])
			fprintf(o, " cpu%d %llu", i, (unsigned long long)c[i]);
	fputc('\n', o);
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "worst", required_argument, NULL, 'n' },
		{ "excerpt", required_argument, NULL, 'e' },
		{ "cpus", required_argument, NULL, 'c' },
		{ "comm", required_argument, NULL, 'C' },
		{ "soft", no_argument, NULL, 'S' },
		{ "load-comm", required_argument, NULL, 'L' },
		{ "json", no_argument, NULL, 'j' },
		{ "text", required_argument, NULL, 't' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	static uint64_t armed[MAX_CPUS], fired[MAX_CPUS], ipi_from[MAX_CPUS];
	struct lat_stat st[HOW_N + 1] = { 0 };
	uint64_t how[HOW_N] = { 0 }, remote_load = 0, remote_lock = 0;
	const char *excerpt = NULL, *path = NULL, *text = NULL;
	int json = 0, worst_n = 10, c;
	struct wake **order;
	unsigned char *buf;
	size_t len;
	FILE *in, *ex = NULL, *o = stdout;
	double d;

	while ((c = getopt_long(argc, argv, "n:e:c:jt:h", opts, NULL)) != -1) {
		switch (c) {
		case 'n':
			if (num_parse("slb-trace", "--worst", optarg, 0, MAX_WORST, 1, &d))
				return 2;
			worst_n = (int)d;
			break;
		case 'e': excerpt = optarg; break;
		case 'c':
			for (const char *p = optarg; *p; p++)
				if (!strchr("0123456789,-", *p) || !*optarg) {
					fprintf(stderr, "slb-trace: --cpus '%s' is not a CPU list (e.g. 1 or 1-3,5)\n", optarg);
					return 2;
				}
			if (!*optarg || *optarg == ',' || *optarg == '-') {
				fprintf(stderr, "slb-trace: --cpus '%s' is not a CPU list (e.g. 1 or 1-3,5)\n", optarg);
				return 2;
			}
			cpus = optarg;
			break;
		case 'C': comm = optarg; break;
		case 'S': soft = 1; break;
		case 'L': load_comm = optarg; break;
		case 'j': json = 1; break;
		case 't': text = optarg; break;
		case 'h': usage(stdout); return 0;
		default: usage(stderr); return 2;
		}
	}
	if (argc - optind > 1) {
		fprintf(stderr, "slb-trace: unexpected argument '%s' (one TRACE at most)\n", argv[optind + 1]);
		return 2;
	}
	if (text && !json) {
		fprintf(stderr, "slb-trace: --text '%s' goes with --json (the text is standard output without it)\n",
			text);
		return 2;
	}
	if (!*comm) {
		fprintf(stderr, "slb-trace: --comm '' is empty (give the task's command name)\n");
		return 2;
	}
	path = optind < argc ? argv[optind] : NULL;
	in = path ? fopen(path, "r") : stdin;
	if (!in) {
		fprintf(stderr, "slb-trace: cannot open %s: %s\n", path, strerror(errno));
		return 1;
	}
	buf = read_stream(in, &len);
	if (path)
		fclose(in);
	if (!buf) {
		fprintf(stderr, "slb-trace: cannot read %s\n", path ? path : "standard input");
		return 1;
	}
	for (const char *p = (const char *)buf, *end = p + len; p < end;) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		struct line l;

		if (*p != '#' && parse_line(p, nl ? (size_t)(nl - p) : (size_t)(end - p), &l) && event(&l)) {
			fprintf(stderr, "slb-trace: out of memory\n");
			return 1;
		}
		p = nl ? nl + 1 : end;
	}
	for (int i = 0; i < ntasks; i++)
		incomplete += (uint64_t)tasks[i].active;
	if (!nwakes) {
		fprintf(stderr, "slb-trace: no complete wake-up of '%s' in %s (%llu events): was it traced?\n", comm,
			path ? path : "standard input", (unsigned long long)nevents);
		return 1;
	}
	order = malloc(nwakes * sizeof(*order));
	if (!order) {
		fprintf(stderr, "slb-trace: out of memory\n");
		return 1;
	}
	for (size_t i = 0; i < nwakes; i++) {
		struct wake *w = &wakes[i];
		double lat = (double)(w->switch_ts - w->expires) / 1e3, fd = (double)(w->fired_ts - w->expires) / 1e3;

		order[i] = w;
		armed[w->armed_cpu]++;
		fired[w->fired_cpu]++;
		how[w->how]++;
		if (w->how == HOW_IPI)
			ipi_from[w->ipi_from]++;
		if (w->fired_cpu != w->switch_cpu) {
			remote_load += (uint64_t)w->interrupted_load;
			remote_lock += (uint64_t)w->in_split_lock;
		}
		stat_add(&st[w->how], lat, fd);
		stat_add(&st[HOW_N], lat, fd);
	}
	qsort(order, nwakes, sizeof(*order), by_latency);
	if ((size_t)worst_n > nwakes)
		worst_n = (int)nwakes;
	if (excerpt && !(ex = fopen(excerpt, "w"))) {
		fprintf(stderr, "slb-trace: cannot write %s: %s\n", excerpt, strerror(errno));
		return 1;
	}
	if (detail((const char *)buf, len, order, worst_n, ex)) {
		fprintf(stderr, "slb-trace: out of memory\n");
		return 1;
	}
	if (ex && fclose(ex)) {
		fprintf(stderr, "slb-trace: cannot write %s\n", excerpt);
		return 1;
	}
	for (int pass = 0; pass < 2; pass++) {
		if (pass == 1) {
			if (!json || !text)
				break;
			if (!(o = fopen(text, "w"))) {
				fprintf(stderr, "slb-trace: cannot write %s: %s\n", text, strerror(errno));
				return 1;
			}
			json = 0;
		}
		if (json) {
			fprintf(o, "{\n  \"comm\": ");
			json_string(o, comm);
			fprintf(o, ",\n  \"events\": %llu,\n  \"span_s\": %.6f,\n  \"markers\": %llu,\n"
				   "  \"wakeups\": %zu,\n  \"incomplete\": %llu,\n",
				(unsigned long long)nevents, (double)(last_ts - first_ts) / 1e9, (unsigned long long)nmarkers,
				nwakes, (unsigned long long)incomplete);
			json_counts(o, "armed_on", armed, 0);
			json_counts(o, "fired_on", fired, 0);
			fprintf(o, "  \"woken\": {\"local\": %llu, \"ipi\": %llu, \"remote\": %llu},\n",
				(unsigned long long)how[HOW_LOCAL], (unsigned long long)how[HOW_IPI],
				(unsigned long long)how[HOW_REMOTE]);
			json_counts(o, "ipi_from", ipi_from, 0);
			fprintf(o, "  \"remote_interrupting_load\": %llu,\n  \"remote_in_split_lock\": %llu,\n",
				(unsigned long long)remote_load, (unsigned long long)remote_lock);
			fprintf(o, "  \"latency_us\": {");
			for (int k = 0; k <= HOW_N; k++)
				fprintf(o, "%s\"%s\": {\"n\": %llu, \"mean\": %.3f, \"max\": %.3f, \"fire_delay_mean\": %.3f, "
					   "\"fire_delay_max\": %.3f}", k ? ", " : "", k == HOW_N ? "all" : how_names[k],
					(unsigned long long)st[k].n, st[k].n ? st[k].sum / (double)st[k].n : 0, st[k].max,
					st[k].n ? st[k].fsum / (double)st[k].n : 0, st[k].fmax);
			fprintf(o, "},\n  \"worst\": [");
			for (int k = 0; k < worst_n; k++) {
				const struct wake *w = order[k];

				fprintf(o, "%s\n    {\"latency_us\": %.3f, \"expires_s\": %.6f, \"cpu\": %d, \"armed_cpu\": %d, "
					   "\"fired_cpu\": %d, \"fire_delay_us\": %.3f, \"woken_cpu\": %d, \"how\": \"%s\", "
					   "\"ipi_from\": %d, \"ipi_callsite\": ",
					k ? "," : "", (double)(w->switch_ts - w->expires) / 1e3, (double)w->expires / 1e9,
					w->switch_cpu, w->armed_cpu, w->fired_cpu, (double)(w->fired_ts - w->expires) / 1e3,
					w->woken_cpu, how_names[w->how], w->ipi_from);
				json_string(o, w->ipi_callsite);
				fprintf(o, ", \"interrupted\": ");
				json_string(o, w->interrupted);
				fprintf(o, ", \"in_split_lock\": %s, \"irqs\": ", w->in_split_lock ? "true" : "false");
				json_string(o, w->irqs);
				fprintf(o, "}");
			}
			fprintf(o, "%s]\n}\n", worst_n ? "\n  " : "");
		} else {
			fprintf(o, "%s: %zu wake-ups traced over %.3f s (%llu events, %llu load markers, %llu incomplete)\n",
				comm, nwakes, (double)(last_ts - first_ts) / 1e9, (unsigned long long)nevents,
				(unsigned long long)nmarkers, (unsigned long long)incomplete);
			text_counts(o, "timer armed on", armed);
			text_counts(o, "timer fired on", fired);
			fprintf(o, "%-22s local %llu, reschedule IPI %llu, remote without IPI %llu\n", "woken by",
				(unsigned long long)how[HOW_LOCAL], (unsigned long long)how[HOW_IPI],
				(unsigned long long)how[HOW_REMOTE]);
			text_counts(o, "IPI sent from", ipi_from);
			fprintf(o, "%-22s %llu interrupted the load, %llu inside its split-lock loop\n", "remote expiries",
				(unsigned long long)remote_load, (unsigned long long)remote_lock);
			for (int k = 0; k <= HOW_N; k++)
				if (st[k].n)
					fprintf(o, "latency %-14s n %llu, mean %.1f us, max %.1f us (timer fired late: mean %.1f, "
						   "max %.1f us)\n", k == HOW_N ? "all" : how_names[k],
						(unsigned long long)st[k].n, st[k].sum / (double)st[k].n, st[k].max,
						st[k].fsum / (double)st[k].n, st[k].fmax);
			if (worst_n)
				fprintf(o, "worst wake-ups:\n  %8s %4s %5s %8s %6s %-6s %-20s %s\n", "us", "cpu", "fired",
					"late_us", "woken", "how", "interrupted", "irqs on the way");
			for (int k = 0; k < worst_n; k++) {
				const struct wake *w = order[k];
				char hw[16];

				if (w->how == HOW_IPI)
					snprintf(hw, sizeof(hw), "ipi<%d", w->ipi_from);
				else
					snprintf(hw, sizeof(hw), "%s", how_names[w->how]);
				fprintf(o, "  %8.1f %4d %5d %8.1f %6d %-6s %-20s %s\n", (double)(w->switch_ts - w->expires) / 1e3,
					w->switch_cpu, w->fired_cpu, (double)(w->fired_ts - w->expires) / 1e3, w->woken_cpu, hw,
					w->in_split_lock ? "load (split lock)" : w->interrupted, w->irqs[0] ? w->irqs : "-");
			}
		}
	}
	if (o != stdout && fclose(o)) {
		fprintf(stderr, "slb-trace: cannot write %s\n", text);
		return 1;
	}
	free(order);
	free(wakes);
	free(buf);
	return 0;
}
