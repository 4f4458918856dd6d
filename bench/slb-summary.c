// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * slb-summary: per-scenario figures of a study run directory
 * (bench/study.sh): for each scenario of scenarios.list and each rep, the
 * guest outcome, the load's fate and the cyclictest latency figures; and
 * the histograms of the good reps pooled. Text, --json or --csv.
 *
 * Exit status: 0 done, 1 unreadable run directory, 2 usage error.
 */
#include "lib/hist.h"
#include "lib/kv.h"

#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_SCEN 64
#define MAX_REPS 100

struct rep {
	int rep, have_hist;
	struct kv info;
	struct hist_stats st;
};

struct scen {
	char name[64];
	int nreps, good;
	struct rep reps[MAX_REPS];
	struct hist pooled;
	struct hist_stats pst;
	char fates[256];
};

static struct scen scens[MAX_SCEN];
static int nscen;

static void usage(FILE *out)
{
	fprintf(out,
		"Usage: slb-summary [--json | --csv] RUNDIR\n"
		"Summarise a study run: per scenario and rep, and pooled over good reps.\n\n"
		"  -j, --json   JSON (default: a table)\n"
		"  -c, --csv    CSV, one row per rep and one 'pooled' row per scenario\n"
		"  -h, --help   this text\n\n"
		"Exit status: 0 done, 1 unreadable run directory, 2 usage error.\n");
}

/* Tally fates as "completed x2, sigbus x1". */
static void add_fate(struct scen *s, const char *fate)
{
	char *p = strstr(s->fates, fate);
	char buf[256];

	if (p && (p == s->fates || p[-2] == ',') && !strncmp(p + strlen(fate), " x", 2)) {
		int n = atoi(p + strlen(fate) + 2);
		char *rest = strchr(p + strlen(fate) + 2, ',');

		snprintf(buf, sizeof(buf), "%.*s%s x%d%s", (int)(p - s->fates), s->fates, fate, n + 1,
			 rest ? rest : "");
		snprintf(s->fates, sizeof(s->fates), "%s", buf);
		return;
	}
	snprintf(buf, sizeof(buf), "%s%s%s x1", s->fates, *s->fates ? ", " : "", fate);
	snprintf(s->fates, sizeof(s->fates), "%s", buf);
}

static int load_scenario(const char *dir, struct scen *s)
{
	char path[4096], err[256];

	s->pooled = (struct hist){ .min_us = -1, .max_us = -1, .avg_us = -1 };
	for (int r = 1; r <= MAX_REPS; r++) {
		struct rep *rp = &s->reps[s->nreps];
		FILE *f;

		snprintf(path, sizeof(path), "%s/%s/rep%d/rep.info", dir, s->name, r);
		if (kv_read(path, &rp->info))
			break;
		rp->rep = r;
		s->nreps++;
		add_fate(s, kv_get(&rp->info, "load_fate", "unknown"));
		snprintf(path, sizeof(path), "%s/%s/rep%d/files/hist.txt", dir, s->name, r);
		f = fopen(path, "r");
		if (f && strcmp(kv_get(&rp->info, "outcome", ""), "ok") == 0) {
			struct hist h;

			if (!hist_parse(f, &h, err, sizeof(err))) {
				hist_stats(&h, &rp->st);
				rp->have_hist = 1;
				if (hist_add(&s->pooled, &h)) {
					fclose(f);
					return -1;
				}
				s->good++;
				hist_free(&h);
			} else {
				fprintf(stderr, "slb-summary: %s: %s\n", path, err);
			}
		}
		if (f)
			fclose(f);
	}
	hist_stats(&s->pooled, &s->pst);
	return 0;
}

static void json_stats(const struct hist_stats *st)
{
	printf("\"samples\": %llu, \"overflows\": %llu, \"min_us\": %ld, \"avg_us\": %.2f, "
	       "\"p50_us\": %ld, \"p90_us\": %ld, \"p99_us\": %ld, \"p999_us\": %ld, \"max_us\": %ld",
	       (unsigned long long)st->samples, (unsigned long long)st->overflows, st->min_us,
	       st->avg_us, st->p50, st->p90, st->p99, st->p999, st->max_us);
}

static void print_json(const char *dir)
{
	printf("{\n  \"run_dir\": \"%s\",\n  \"unit\": \"us\",\n  \"emulated\": true,\n  \"scenarios\": [\n", dir);
	for (int i = 0; i < nscen; i++) {
		struct scen *s = &scens[i];

		printf("    {\"name\": \"%s\", \"reps_total\": %d, \"reps_ok\": %d, \"load_fates\": \"%s\",\n",
		       s->name, s->nreps, s->good, s->fates);
		printf("     \"pooled\": {");
		json_stats(&s->pst);
		printf("},\n     \"reps\": [\n");
		for (int r = 0; r < s->nreps; r++) {
			struct rep *rp = &s->reps[r];

			printf("       {\"rep\": %d, \"outcome\": \"%s\", \"load_fate\": \"%s\", \"load_ops\": %lld, "
			       "\"load_end_ms\": %s, \"sld_traps\": %lld, \"sld_warned\": %lld, \"sld_killed\": %lld",
			       rp->rep, kv_get(&rp->info, "outcome", "missing"),
			       kv_get(&rp->info, "load_fate", "unknown"), kv_get_ll(&rp->info, "load_ops", -1),
			       kv_get(&rp->info, "load_end_ms", "-1"), kv_get_ll(&rp->info, "sld_traps", -1),
			       kv_get_ll(&rp->info, "sld_warned", -1), kv_get_ll(&rp->info, "sld_killed", -1));
			if (rp->have_hist) {
				printf(", ");
				json_stats(&rp->st);
			}
			printf("}%s\n", r + 1 < s->nreps ? "," : "");
		}
		printf("     ]}%s\n", i + 1 < nscen ? "," : "");
	}
	printf("  ]\n}\n");
}

static void csv_row(const char *name, const char *rep, const struct kv *info, const struct hist_stats *st)
{
	printf("%s,%s,%s,%s,%lld,%lld,", name, rep, info ? kv_get(info, "outcome", "missing") : "",
	       info ? kv_get(info, "load_fate", "unknown") : "", info ? kv_get_ll(info, "load_ops", -1) : -1,
	       info ? kv_get_ll(info, "sld_traps", -1) : -1);
	if (st)
		printf("%llu,%ld,%.2f,%ld,%ld,%ld,%ld,%ld,%llu\n", (unsigned long long)st->samples, st->min_us,
		       st->avg_us, st->p50, st->p90, st->p99, st->p999, st->max_us,
		       (unsigned long long)st->overflows);
	else
		printf(",,,,,,,,\n");
}

static void print_csv(void)
{
	printf("scenario,rep,outcome,load_fate,load_ops,sld_traps,samples,min_us,avg_us,p50_us,p90_us,p99_us,p999_us,max_us,overflows\n");
	for (int i = 0; i < nscen; i++) {
		struct scen *s = &scens[i];
		char rep[16];

		for (int r = 0; r < s->nreps; r++) {
			snprintf(rep, sizeof(rep), "%d", s->reps[r].rep);
			csv_row(s->name, rep, &s->reps[r].info, s->reps[r].have_hist ? &s->reps[r].st : NULL);
		}
		csv_row(s->name, "pooled", NULL, s->good ? &s->pst : NULL);
	}
}

static void print_text(void)
{
	printf("latency on the isolated vCPU, us of emulated time (QEMU TCG), pooled over good reps\n");
	printf("%-22s %5s %10s %8s %7s %7s %8s %8s %6s  %s\n", "scenario", "ok", "samples", "avg", "p50",
	       "p99", "p99.9", "max", "ovfl", "load fate");
	for (int i = 0; i < nscen; i++) {
		struct scen *s = &scens[i];

		printf("%-22s %2d/%-2d %10llu %8.1f %7ld %7ld %8ld %8ld %6llu  %s\n", s->name, s->good, s->nreps,
		       (unsigned long long)s->pst.samples, s->pst.avg_us, s->pst.p50, s->pst.p99, s->pst.p999,
		       s->pst.max_us, (unsigned long long)s->pst.overflows, s->fates);
	}
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "json", no_argument, NULL, 'j' },
		{ "csv", no_argument, NULL, 'c' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int c, fmt = 0;
	char path[4096], line[64];
	FILE *f;

	while ((c = getopt_long(argc, argv, "jch", opts, NULL)) != -1) {
		switch (c) {
		case 'j': fmt = 1; break;
		case 'c': fmt = 2; break;
		case 'h': usage(stdout); return 0;
		default: usage(stderr); return 2;
		}
	}
	if (optind != argc - 1) {
		usage(stderr);
		return 2;
	}
	snprintf(path, sizeof(path), "%s/scenarios.list", argv[optind]);
	f = fopen(path, "r");
	if (!f) {
		fprintf(stderr, "slb-summary: %s: %s (not a study run directory?)\n", path, strerror(errno));
		return 1;
	}
	while (fgets(line, sizeof(line), f) && nscen < MAX_SCEN) {
		line[strcspn(line, "\n")] = '\0';
		if (!*line)
			continue;
		snprintf(scens[nscen].name, sizeof(scens[nscen].name), "%s", line);
		if (load_scenario(argv[optind], &scens[nscen])) {
			fprintf(stderr, "slb-summary: out of memory\n");
			fclose(f);
			return 1;
		}
		nscen++;
	}
	fclose(f);
	if (fmt == 1)
		print_json(argv[optind]);
	else if (fmt == 2)
		print_csv();
	else
		print_text();
	return 0;
}
