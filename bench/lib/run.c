// SPDX-License-Identifier: GPL-2.0-or-later
/* Study run directory reader; see run.h. */
#include "run.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The measure whose histograms run_load reads, and their file in files/. */
static const char *measure = "cyclictest", *measure_file = "hist.txt";

int run_set_measure(const char *name)
{
	static const char *const names[][2] = {
		{ "cyclictest", "hist.txt" },
		{ "timerlat-irq", "timerlat-irq.txt" },
		{ "timerlat-thread", "timerlat-thread.txt" },
	};

	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (!strcmp(name, names[i][0])) {
			measure = names[i][0];
			measure_file = names[i][1];
			return 0;
		}
	return -1;
}

const char *run_measure(void)
{
	return measure;
}

/* What happened to a rep's load: load_outcome (bench/rep-info.sh), else its load_fate. */
static const char *rep_fate(const struct run_rep *rp)
{
	return kv_get(&rp->info, "load_outcome", kv_get(&rp->info, "load_fate", "unknown"));
}

/* s->fates from the reps' load outcomes: "killed x2, never-trapped x1", in order of first appearance. */
static void summarise_fates(struct run_scen *s)
{
	size_t len = 0;

	s->fates[0] = '\0';
	for (int i = 0; i < s->nreps; i++) {
		const char *fate = rep_fate(&s->reps[i]);
		int seen = 0, count = 0;

		for (int k = 0; k < s->nreps; k++) {
			int same = !strcmp(rep_fate(&s->reps[k]), fate);

			seen |= same && k < i;
			count += same;
		}
		if (!seen && len < sizeof(s->fates))
			len += (size_t)snprintf(s->fates + len, sizeof(s->fates) - len, "%s%s x%d",
						len ? ", " : "", fate, count);
	}
}

/*
 * cyclictest counts a cycle for every sample it puts in the histogram,
 * overflows included: a histogram that holds another number of samples
 * than cyclictest.json's cycles (rep.info ct_cycles; -1 when unknown) is
 * not the run's. Warns and returns 0 on a mismatch. (rtla timerlat's
 * histograms have their own count, which slb-timerlat checks.)
 */
static int cycles_agree(const struct run_rep *rp, const char *path)
{
	long long cycles = strcmp(measure, "cyclictest") ? -1 : kv_get_ll(&rp->info, "ct_cycles", -1);
	unsigned long long held = (unsigned long long)(rp->h.samples + rp->h.overflows);

	if (cycles < 0 || (unsigned long long)cycles == held)
		return 1;
	fprintf(stderr, "warning: %s: %llu samples (# Total plus overflows), but cyclictest counted %lld cycles (rep not pooled)\n",
		path, held, cycles);
	return 0;
}

/*
 * The good rep's histogram (path) per column into s->pooled_cpu[], when
 * it has more than one: the CPUs of a scenario measured alike in every
 * rep (a rep with another number of columns is pooled, not split).
 * 0, or -1 with a message (out of memory, a column that does not parse).
 */
static int pool_cpus(struct run_scen *s, const struct run_rep *rp, const char *path, char *err, size_t errlen)
{
	const char *cpus = kv_get(&rp->info, "ct_cpus", "");
	int n = rp->h.threads;

	if (n < 2 || n > RUN_MAX_CPUS || (s->ncpu && s->ncpu != n))
		return 0;
	if (!s->ncpu) {
		s->ncpu = n;
		for (int k = 0; k < n; k++) {
			char *end;

			s->cpu[k] = -1;
			s->pooled_cpu[k] = (struct hist){ .min_us = -1, .max_us = -1, .avg_us = -1 };
			if (*cpus >= '0' && *cpus <= '9') {
				s->cpu[k] = (int)strtol(cpus, &end, 10);
				cpus = *end == ',' ? end + 1 : end;
			}
		}
	}
	for (int k = 0; k < n; k++) {
		struct hist one;
		char perr[256];
		FILE *f = fopen(path, "r");
		int bad;

		if (!f) {
			snprintf(err, errlen, "%s: %s", path, strerror(errno));
			return -1;
		}
		bad = hist_parse_column(f, &one, k, perr, sizeof(perr));
		fclose(f);
		if (bad) {
			snprintf(err, errlen, "%s: column %d: %s", path, k + 1, perr);
			return -1;
		}
		bad = hist_add(&s->pooled_cpu[k], &one);
		hist_free(&one);
		if (bad) {
			snprintf(err, errlen, "out of memory");
			return -1;
		}
	}
	return 0;
}

/* s->pst_cpu[] and s->worst_cpu from s->pooled_cpu[]. */
static void cpu_stats(struct run_scen *s)
{
	s->worst_cpu = -1;
	for (int k = 0; k < s->ncpu; k++) {
		struct hist_stats *a = &s->pst_cpu[k], *w;

		hist_stats(&s->pooled_cpu[k], a);
		if (s->worst_cpu < 0) {
			s->worst_cpu = k;
			continue;
		}
		w = &s->pst_cpu[s->worst_cpu];
		if (a->p999 > w->p999 || (a->p999 == w->p999 && a->max_us > w->max_us))
			s->worst_cpu = k;
	}
}

static int load_scen(const char *dir, struct run_scen *s, char *err, size_t errlen)
{
	char path[4096], perr[256];
	long long interval;

	s->reps = calloc(RUN_MAX_REPS, sizeof(*s->reps));
	if (!s->reps) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	s->pooled = (struct hist){ .min_us = -1, .max_us = -1, .avg_us = -1 };
	s->pooled_co = s->pooled;
	for (int r = 1; r <= RUN_MAX_REPS; r++) {
		struct run_rep *rp = &s->reps[s->nreps];
		FILE *f;

		snprintf(path, sizeof(path), "%s/%s/rep%d/rep.info", dir, s->name, r);
		if (kv_read(path, &rp->info))
			break;
		rp->rep = r;
		rp->seed = kv_get_ll(&rp->info, "seed", -1);
		s->nreps++;
		if (strcmp(kv_get(&rp->info, "outcome", ""), "ok"))
			continue;
		snprintf(path, sizeof(path), "%s/%s/rep%d/files/%s", dir, s->name, r, measure_file);
		f = fopen(path, "r");
		if (!f) {
			fprintf(stderr, "warning: %s: %s (the guest run ended ok without it; rep not pooled)\n",
				path, strerror(errno));
			s->unusable++;
			continue;
		}
		if (hist_parse(f, &rp->h, perr, sizeof(perr))) {
			fprintf(stderr, "warning: %s: %s (rep not pooled)\n", path, perr);
			s->unusable++;
		} else if (!cycles_agree(rp, path)) {
			hist_free(&rp->h);
			s->unusable++;
		} else {
			hist_stats(&rp->h, &rp->st);
			interval = kv_get_ll(&rp->info, "ct_interval_us", -1);
			rp->missed = hist_co_correct(&rp->h, interval, &rp->co);
			if (rp->missed < 0) {
				fclose(f);
				snprintf(err, errlen, "out of memory");
				return -1;
			}
			if (interval <= 0)
				rp->missed = -1;	/* unknown: co is a copy of h */
			hist_stats(&rp->co, &rp->cst);
			rp->have_hist = 1;
			s->good++;
			if (hist_add(&s->pooled, &rp->h) || hist_add(&s->pooled_co, &rp->co)) {
				fclose(f);
				snprintf(err, errlen, "out of memory");
				return -1;
			}
			if (pool_cpus(s, rp, path, err, errlen)) {
				fclose(f);
				return -1;
			}
		}
		fclose(f);
	}
	hist_stats(&s->pooled, &s->pst);
	hist_stats(&s->pooled_co, &s->pcst);
	cpu_stats(s);
	summarise_fates(s);
	return 0;
}

/* Column f (0-based, trimmed) of a '|'-separated line into out. */
static void conf_field(const char *line, int f, char *out, size_t len)
{
	const char *p = line, *end;

	for (int i = 0; i < f && p; i++) {
		p = strchr(p, '|');
		p = p ? p + 1 : NULL;
	}
	out[0] = '\0';
	if (!p)
		return;
	end = strchr(p, '|');
	if (!end)
		end = p + strcspn(p, "\n");
	while (p < end && (*p == ' ' || *p == '\t'))
		p++;
	while (end > p && (end[-1] == ' ' || end[-1] == '\t'))
		end--;
	snprintf(out, len, "%.*s", (int)(end - p), p);
}

/*
 * The roles of the scenarios from dir/scenarios.conf (rt-config format;
 * bench/scenarios.sh is the shell reader of the same file). A missing
 * file or column leaves the roles empty.
 */
static void load_roles(const char *dir, struct run *r)
{
	char path[4096], line[1024], name[64];
	FILE *f;

	snprintf(path, sizeof(path), "%s/scenarios.conf", dir);
	f = fopen(path, "r");
	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		struct run_scen *s;

		if (line[0] == '#' || !strchr(line, '|'))
			continue;
		conf_field(line, 0, name, sizeof(name));
		s = run_find(r, name);
		if (!s)
			continue;
		conf_field(line, 4, s->control, sizeof(s->control));
		if (!strcmp(s->control, "-"))
			s->control[0] = '\0';
		conf_field(line, 5, s->expect, sizeof(s->expect));
		conf_field(line, 6, s->what, sizeof(s->what));
		conf_field(line, 1, s->kopts, sizeof(s->kopts));
		conf_field(line, 2, s->load, sizeof(s->load));
		conf_field(line, 3, s->sysctls, sizeof(s->sysctls));
		conf_field(line, 7, s->guest, sizeof(s->guest));
	}
	fclose(f);
}

int run_load(const char *dir, struct run *r, char *err, size_t errlen)
{
	char path[4096], line[64];
	FILE *f;

	memset(r, 0, sizeof(*r));
	snprintf(path, sizeof(path), "%s/scenarios.list", dir);
	f = fopen(path, "r");
	if (!f) {
		snprintf(err, errlen, "%s: %s (not a study run directory?)", path, strerror(errno));
		return -1;
	}
	while (fgets(line, sizeof(line), f) && r->nscen < RUN_MAX_SCEN) {
		line[strcspn(line, "\n")] = '\0';
		if (!*line)
			continue;
		snprintf(r->scen[r->nscen].name, sizeof(r->scen[0].name), "%s", line);
		if (load_scen(dir, &r->scen[r->nscen++], err, errlen)) {
			fclose(f);
			return -1;
		}
	}
	fclose(f);
	if (!r->nscen) {
		snprintf(err, errlen, "%s lists no scenario", path);
		return -1;
	}
	load_roles(dir, r);
	return 0;
}

int run_load_or_report(const char *prog, const char *dir, struct run *r)
{
	char err[512];

	if (!run_load(dir, r, err, sizeof(err)))
		return 0;
	fprintf(stderr, "%s: %s\n", prog, err);
	return -1;
}

int run_exit_status(const char *prog, const struct run *r)
{
	int n = 0;

	for (int i = 0; i < r->nscen; i++)
		n += r->scen[i].unusable;
	if (!n)
		return 0;
	fprintf(stderr, "%s: %d rep(s) unusable (see the warnings above); the output covers the others\n", prog, n);
	return 1;
}

void run_free(struct run *r)
{
	for (int i = 0; i < r->nscen; i++) {
		struct run_scen *s = &r->scen[i];

		for (int k = 0; s->reps && k < s->nreps; k++) {
			hist_free(&s->reps[k].h);
			hist_free(&s->reps[k].co);
		}
		free(s->reps);
		hist_free(&s->pooled);
		hist_free(&s->pooled_co);
		for (int k = 0; k < s->ncpu; k++)
			hist_free(&s->pooled_cpu[k]);
	}
	r->nscen = 0;
}

struct run_scen *run_find(struct run *r, const char *name)
{
	for (int i = 0; i < r->nscen; i++)
		if (!strcmp(r->scen[i].name, name))
			return &r->scen[i];
	return NULL;
}
