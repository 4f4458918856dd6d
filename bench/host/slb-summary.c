// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * slb-summary: per-scenario figures of a study run directory
 * (bench/study.sh): for each scenario of scenarios.list and each rep, the
 * guest outcome, the load's fate and the cyclictest latency figures; and
 * the histograms of the good reps pooled. Text, --json or --csv. A native
 * run (its target.txt: TARGET=native or ssh) is real time, not emulated.
 *
 * Exit status: 0 done, 1 unreadable run directory or an unusable rep
 * (output written without it), 2 usage error.
 */
#include "../lib/io.h"
#include "../lib/run.h"

#include <getopt.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static struct run run;
static int native;

/* A native run (bench/target/native.sh) keeps the target's facts. */
static int is_native(const char *dir)
{
	char path[4096];

	snprintf(path, sizeof(path), "%s/target.txt", dir);
	return access(path, F_OK) == 0;
}

static void usage(FILE *out)
{
	fprintf(out,
		"Usage: slb-summary [--json | --csv] [--measure M] RUNDIR\n"
		"Summarise a study run: per scenario and rep, and pooled over good reps.\n\n"
		"  -j, --json   JSON (default: a table)\n"
		"  -c, --csv    CSV, one row per rep and one 'pooled' row per scenario\n"
		"  -m, --measure M  the reps' histograms: cyclictest (default), timerlat-irq\n"
		"               or timerlat-thread (rtla timerlat, study.sh --measure)\n"
		"  -h, --help   this text\n\n"
		"Exit status: 0 done, 1 unreadable run directory or an unusable rep\n"
		"(the output is written without it), 2 usage error.\n");
}

/*
 * A rep's count (rep.info: load_ops, sld_*), which rep-info.sh writes as -1
 * when it was not measured: JSON null or an empty CSV cell for that.
 */
static void count_out(const struct kv *info, const char *key, int json)
{
	long long v = info ? kv_get_ll(info, key, -1) : -1;

	if (v >= 0)
		printf("%lld", v);
	else if (json)
		printf("null");
}

static void print_json(const char *dir)
{
	printf("{\n  \"run_dir\": \"%s\",\n  \"unit\": \"us\",\n  \"measure\": \"%s\",\n  \"emulated\": %s,\n  \"scenarios\": [\n",
	       dir, run_measure(), native ? "false" : "true");
	for (int i = 0; i < run.nscen; i++) {
		struct run_scen *s = &run.scen[i];

		printf("    {\"name\": \"%s\", \"reps_total\": %d, \"reps_ok\": %d, \"load_fates\": \"%s\",\n",
		       s->name, s->nreps, s->good, s->fates);
		printf("     \"pooled\": {");
		hist_stats_json(stdout, &s->pst);
		printf("},\n");
		/* more than one measured CPU: each one's figures, and the worst */
		if (s->ncpu) {
			printf("     \"cpus\": [");
			for (int k = 0; k < s->ncpu; k++) {
				printf("%s{\"cpu\": ", k ? ", " : "");
				if (s->cpu[k] >= 0)
					printf("%d, ", s->cpu[k]);
				else
					printf("null, ");
				hist_stats_json(stdout, &s->pst_cpu[k]);
				printf("}");
			}
			printf("],\n     \"worst_cpu\": ");
			if (s->cpu[s->worst_cpu] >= 0)
				printf("%d,\n", s->cpu[s->worst_cpu]);
			else
				printf("null,\n");
		}
		printf("     \"reps\": [\n");
		for (int r = 0; r < s->nreps; r++) {
			struct run_rep *rp = &s->reps[r];

			/*
			 * Runs before the counters were renamed say warned/killed;
			 * runs without the bus-lock counter get -1 (unknown).
			 */
			printf("       {\"rep\": %d, \"outcome\": \"%s\", \"load_fate\": \"%s\", \"load_ops\": ",
			       rp->rep, kv_get(&rp->info, "outcome", "missing"), kv_get(&rp->info, "load_fate", "unknown"));
			count_out(&rp->info, "load_ops", 1);
			printf(", \"load_end_ms\": ");
			count_out(&rp->info, "load_end_ms", 1);
			printf(", \"sld_traps\": ");
			count_out(&rp->info, "sld_traps", 1);
			printf(", \"sld_sigbus\": ");
			count_out(&rp->info, kv_get(&rp->info, "sld_sigbus", NULL) ? "sld_sigbus" : "sld_killed", 1);
			printf(", \"sld_resumed\": ");
			count_out(&rp->info, kv_get(&rp->info, "sld_resumed", NULL) ? "sld_resumed" : "sld_warned", 1);
			printf(", \"sld_buslock\": ");
			count_out(&rp->info, "sld_buslock", 1);
			printf(", \"sld_cpu_traps\": \"%s\"", kv_get(&rp->info, "sld_cpu_traps", "none"));
			if (*kv_get(&rp->info, "reason", "")) {
				printf(", \"reason\": ");
				json_string(stdout, kv_get(&rp->info, "reason", ""));
			}
			if (rp->have_hist) {
				printf(", ");
				hist_stats_json(stdout, &rp->st);
			}
			printf("}%s\n", r + 1 < s->nreps ? "," : "");
		}
		printf("     ]}%s\n", i + 1 < run.nscen ? "," : "");
	}
	printf("  ]\n}\n");
}

static void csv_row(const char *name, const char *rep, const struct kv *info, const struct hist_stats *st)
{
	printf("%s,%s,%s,%s,", name, rep, info ? kv_get(info, "outcome", "missing") : "",
	       info ? kv_get(info, "load_fate", "unknown") : "");
	count_out(info, "load_ops", 0);
	putchar(',');
	count_out(info, "sld_traps", 0);
	putchar(',');
	count_out(info, "sld_buslock", 0);
	putchar(',');
	if (st)
		printf("%llu,%ld,%.2f,%ld,%ld,%ld,%ld,%ld,%llu\n", (unsigned long long)st->samples, st->min_us,
		       st->avg_us, st->p50, st->p90, st->p99, st->p999, st->max_us,
		       (unsigned long long)st->overflows);
	else
		printf(",,,,,,,,\n");
}

static void print_csv(void)
{
	printf("scenario,rep,outcome,load_fate,load_ops,sld_traps,sld_buslock,samples,min_us,avg_us,p50_us,p90_us,p99_us,p999_us,max_us,overflows\n");
	for (int i = 0; i < run.nscen; i++) {
		struct run_scen *s = &run.scen[i];
		char rep[16];

		for (int r = 0; r < s->nreps; r++) {
			snprintf(rep, sizeof(rep), "%d", s->reps[r].rep);
			csv_row(s->name, rep, &s->reps[r].info, s->reps[r].have_hist ? &s->reps[r].st : NULL);
		}
		csv_row(s->name, "pooled", NULL, s->good ? &s->pst : NULL);
	}
}

/* A quantile, or "> limit" when it lies past the histogram's last bucket. */
static void quantile_text(char *buf, size_t len, long v, unsigned beyond)
{
	if (beyond)
		snprintf(buf, len, "> limit");
	else
		snprintf(buf, len, "%ld", v);
}

/*
 * Under a scenario that measured more than one CPU, a row per CPU with its
 * pooled figures ("  cpu2"), the worst (p99.9, then max) marked.
 */
static void cpu_rows(const struct run_scen *s)
{
	for (int k = 0; k < s->ncpu; k++) {
		const struct hist_stats *c = &s->pst_cpu[k];
		char p99[24], p999[24], name[32];

		quantile_text(p99, sizeof(p99), c->p99, c->beyond & HIST_BEYOND_P99);
		quantile_text(p999, sizeof(p999), c->p999, c->beyond & HIST_BEYOND_P999);
		if (s->cpu[k] >= 0)
			snprintf(name, sizeof(name), "  cpu%d", s->cpu[k]);
		else
			snprintf(name, sizeof(name), "  thread%d", k);
		printf("%-22s %5s %10llu %8.1f %7ld %7s %8s %8ld %6llu%s\n", name, "",
		       (unsigned long long)c->samples, c->avg_us, c->p50, p99, p999, c->max_us,
		       (unsigned long long)c->overflows, k == s->worst_cpu ? "  worst CPU" : "");
	}
}

static void print_text(void)
{
	if (strcmp(run_measure(), "cyclictest"))
		printf("measure: %s (rtla timerlat)\n", run_measure());
	if (native)
		printf("latency on the measured CPU, us of real time (native), pooled over good reps\n");
	else
		printf("latency on the isolated vCPU, us of emulated time (QEMU TCG), pooled over good reps\n");
	printf("%-22s %5s %10s %8s %7s %7s %8s %8s %6s  %s\n", "scenario", "ok", "samples", "avg", "p50",
	       "p99", "p99.9", "max", "ovfl", "load fate");
	for (int i = 0; i < run.nscen; i++) {
		struct run_scen *s = &run.scen[i];

		char p99[24], p999[24];

		if (!s->pst.samples && !s->pst.overflows) {
			printf("%-22s %2d/%-2d %10s %8s %7s %7s %8s %8s %6s  %s\n", s->name, s->good, s->nreps,
			       "no data", "-", "-", "-", "-", "-", "-", s->fates);
			continue;
		}
		quantile_text(p99, sizeof(p99), s->pst.p99, s->pst.beyond & HIST_BEYOND_P99);
		quantile_text(p999, sizeof(p999), s->pst.p999, s->pst.beyond & HIST_BEYOND_P999);
		printf("%-22s %2d/%-2d %10llu %8.1f %7ld %7s %8s %8ld %6llu  %s\n", s->name, s->good, s->nreps,
		       (unsigned long long)s->pst.samples, s->pst.avg_us, s->pst.p50, p99, p999,
		       s->pst.max_us, (unsigned long long)s->pst.overflows, s->fates);
		cpu_rows(s);
	}
	/* The reps that did not end ok, with why (rep.info reason). */
	for (int i = 0; i < run.nscen; i++)
		for (int r = 0; r < run.scen[i].nreps; r++) {
			const struct kv *info = &run.scen[i].reps[r].info;
			const char *outcome = kv_get(info, "outcome", "missing");

			if (strcmp(outcome, "ok"))
				printf("  %s rep %d: %s%s%s\n", run.scen[i].name, run.scen[i].reps[r].rep, outcome,
				       *kv_get(info, "reason", "") ? ": " : "", kv_get(info, "reason", ""));
		}
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "json", no_argument, NULL, 'j' },
		{ "csv", no_argument, NULL, 'c' },
		{ "measure", required_argument, NULL, 'm' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int c, fmt = 0, rc;

	while ((c = getopt_long(argc, argv, "jcm:h", opts, NULL)) != -1) {
		switch (c) {
		case 'j': fmt = 1; break;
		case 'c': fmt = 2; break;
		case 'm':
			if (run_set_measure(optarg)) {
				fprintf(stderr, "slb-summary: measure '%s' is not allowed (allowed: " RUN_MEASURES ")\n", optarg);
				return 2;
			}
			break;
		case 'h': usage(stdout); return 0;
		default: usage(stderr); return 2;
		}
	}
	if (optind != argc - 1) {
		usage(stderr);
		return 2;
	}
	native = is_native(argv[optind]);
	if (run_load_or_report("slb-summary", argv[optind], &run))
		return 1;
	if (fmt == 1)
		print_json(argv[optind]);
	else if (fmt == 2)
		print_csv();
	else
		print_text();
	rc = run_exit_status("slb-summary", &run);
	run_free(&run);
	return rc;
}
