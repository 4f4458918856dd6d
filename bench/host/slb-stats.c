// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * slb-stats: the statistics of a study run (bench/study.sh), and the
 * verdict sentences of its report. Per scenario: pooled figures, per-rep
 * p99/p99.9/max, and 95 % confidence intervals of p99 and p99.9 by a
 * percentile bootstrap over reps (reps resampled with replacement, their
 * histograms pooled). Per comparison (split-off/aligned, split-off/
 * baseline, split-on/baseline, warn/baseline, ...): ratios of avg, p99 and
 * p99.9 with bootstrap CIs, and a two-sided Mann-Whitney U test on the
 * pooled samples; "significant" means p < 0.05 and a p99.9 ratio CI that
 * excludes 1. With --against RUN_A the
 * comparisons are per scenario, this run over RUN_A (make compare).
 *
 * Exit status: 0 done, 1 unreadable or mismatched runs, 2 usage error.
 */
#include "../lib/run.h"
#include "../lib/stats.h"

#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define ALPHA 0.05

struct cmp {
	const struct run_scen *a, *b;
	char label[160];
	double r_avg, r_p99, r_p999, ci99[2], ci999[2];
	struct mw_result mw;
	int ok, significant;
};

static struct run run, base;
static struct cmp cmps[RUN_MAX_SCEN];
static int ncmp, nboot = 2000;
static uint64_t seed = 42;

static void usage(FILE *out)
{
	fprintf(out,
		"Usage: slb-stats [options] RUNDIR\n"
		"Statistics, comparisons and verdicts of a study run (JSON on stdout).\n\n"
		"  -a, --against RUN_A   compare RUNDIR with RUN_A scenario by scenario (B/A)\n"
		"  -p, --plot-data DIR   also write gnuplot data files into DIR\n"
		"  -b, --boot N          bootstrap resamples, 100 to 100000 (default 2000)\n"
		"  -s, --seed N          bootstrap seed (default 42: reports are reproducible)\n"
		"  -h, --help            this text\n\n"
		"Exit status: 0 done, 1 unreadable or mismatched runs, 2 usage error.\n");
}

static double ratio(double b, double a)
{
	return a > 0 ? b / a : NAN;
}

static void jnum(double v)
{
	if (isnan(v) || isinf(v))
		printf("null");
	else
		printf("%.4g", v);
}

static void compare(const struct run_scen *a, const struct run_scen *b, const char *label)
{
	struct cmp *c = &cmps[ncmp++];
	double *r99 = malloc(sizeof(double) * (size_t)nboot), *r999 = malloc(sizeof(double) * (size_t)nboot);
	uint64_t st = seed;

	memset(c, 0, sizeof(*c));
	c->a = a;
	c->b = b;
	snprintf(c->label, sizeof(c->label), "%s", label);
	c->ci99[0] = c->ci99[1] = c->ci999[0] = c->ci999[1] = NAN;
	if (!a->good || !b->good || !r99 || !r999 || mann_whitney(&b->pooled, &a->pooled, &c->mw)) {
		free(r99);
		free(r999);
		return;
	}
	c->ok = 1;
	c->r_avg = ratio(b->pst.avg_us, a->pst.avg_us);
	c->r_p99 = ratio((double)b->pst.p99, (double)a->pst.p99);
	c->r_p999 = ratio((double)b->pst.p999, (double)a->pst.p999);
	for (int i = 0; i < nboot; i++) {
		r99[i] = ratio(bootstrap_draw(b->good_hists, b->good, 0.99, &st),
			       bootstrap_draw(a->good_hists, a->good, 0.99, &st));
		r999[i] = ratio(bootstrap_draw(b->good_hists, b->good, 0.999, &st),
				bootstrap_draw(a->good_hists, a->good, 0.999, &st));
	}
	qsort(r99, (size_t)nboot, sizeof(double), stats_cmp_double);
	qsort(r999, (size_t)nboot, sizeof(double), stats_cmp_double);
	c->ci99[0] = sorted_percentile(r99, nboot, 0.025);
	c->ci99[1] = sorted_percentile(r99, nboot, 0.975);
	c->ci999[0] = sorted_percentile(r999, nboot, 0.025);
	c->ci999[1] = sorted_percentile(r999, nboot, 0.975);
	/*
	 * Samples of one run are autocorrelated, so on tens of thousands of
	 * them Mann-Whitney flags even negligible shifts. Call a difference
	 * significant only when the tail moved too: the p99.9 ratio's CI
	 * excludes 1.
	 */
	c->significant = c->mw.p < ALPHA && (c->ci999[0] > 1 || c->ci999[1] < 1);
	free(r99);
	free(r999);
}

static const struct cmp *find_cmp(const char *a, const char *b)
{
	for (int i = 0; i < ncmp; i++)
		if (cmps[i].ok && !strcmp(cmps[i].a->name, a) && !strcmp(cmps[i].b->name, b))
			return &cmps[i];
	return NULL;
}

static void within_run_comparisons(void)
{
	static const char *const pairs[][2] = {
		{ "aligned", "split-off" }, { "baseline", "split-off" }, { "baseline", "aligned" },
		{ "baseline", "split-on" }, { "baseline", "split-warn" },
		{ "baseline", "split-warn-nomitigate" }, { "baseline", "lockbus-off" },
		{ "split-off", "split-on" },
	};
	char label[160];

	for (size_t i = 0; i < sizeof(pairs) / sizeof(pairs[0]); i++) {
		struct run_scen *a = run_find(&run, pairs[i][0]), *b = run_find(&run, pairs[i][1]);

		if (a && b) {
			snprintf(label, sizeof(label), "%s / %s", b->name, a->name);
			compare(a, b, label);
		}
	}
}

/* Median of the reps' numeric rep.info values for key (>= 0 only); -1 if none. */
/* Median of v[0..n) (sorted in place), or none when n is 0. */
static double median_or(double *v, int n, double none)
{
	if (!n)
		return none;
	qsort(v, (size_t)n, sizeof(double), stats_cmp_double);
	return sorted_percentile(v, n, 0.5);
}

static double rep_median(const struct run_scen *s, const char *key)
{
	double v[RUN_MAX_REPS];
	int n = 0;

	for (int i = 0; i < s->nreps; i++) {
		const char *x = kv_get(&s->reps[i].info, key, NULL);

		if (x && *x && atof(x) >= 0)
			v[n++] = atof(x);
	}
	return median_or(v, n, -1);
}

/*
 * Median over reps of the share of cyclictest's periods that completed
 * (ct_cycles of ct_expected): below 100 % the isolated vCPU was starved,
 * which the latency histogram alone does not show. -1 if unknown.
 */
static double cycles_pct(const struct run_scen *s)
{
	double v[RUN_MAX_REPS];
	int n = 0;

	for (int i = 0; i < s->nreps; i++) {
		long long got = kv_get_ll(&s->reps[i].info, "ct_cycles", -1);
		long long want = kv_get_ll(&s->reps[i].info, "ct_expected", -1);

		if (got >= 0 && want > 0)
			v[n++] = 100.0 * (double)got / (double)want;
	}
	return median_or(v, n, -1);
}

static int count_fate(const struct run_scen *s, const char *fate)
{
	int n = 0;

	for (int i = 0; i < s->nreps; i++)
		n += !strcmp(kv_get(&s->reps[i].info, "load_fate", ""), fate);
	return n;
}

static long long max_ops(const struct run_scen *s, const char *fate)
{
	long long m = -1;

	for (int i = 0; i < s->nreps; i++)
		if (!strcmp(kv_get(&s->reps[i].info, "load_fate", ""), fate) &&
		    kv_get_ll(&s->reps[i].info, "load_ops", -1) > m)
			m = kv_get_ll(&s->reps[i].info, "load_ops", -1);
	return m;
}

/* ", significantly higher" / ", significantly lower" / ", not significant" */
static const char *sig_word(const struct cmp *c)
{
	if (!c->significant)
		return ", not significant";
	return c->r_p999 >= 1 ? ", significantly higher" : ", significantly lower";
}

/* "xR (95 % CI a-b, p = P)" for the p99.9 ratio of c. */
static const char *effect(const struct cmp *c)
{
	static char buf[4][160];
	static int k;
	char *b = buf[k++ % 4];
	char p[32];

	if (c->mw.p < 1e-16)
		snprintf(p, sizeof(p), "p < 1e-16");
	else
		snprintf(p, sizeof(p), "p = %.2g", c->mw.p);
	snprintf(b, 160, "x%.2f (95 %% CI %.2f-%.2f, Mann-Whitney %s)", c->r_p999, c->ci999[0], c->ci999[1], p);
	return b;
}

static void verdicts(void)
{
	const struct cmp *impact = find_cmp("aligned", "split-off");
	const struct cmp *on = find_cmp("baseline", "split-on");
	const struct cmp *warn = find_cmp("baseline", "split-warn");
	const struct cmp *warn0 = find_cmp("baseline", "split-warn-nomitigate");
	const struct cmp *lockbus = find_cmp("baseline", "lockbus-off");
	int first = 1, harm = 0, cured = 0;

	printf("  \"verdicts\": [");
#define VERDICT(...) do { printf("%s\n    \"", first ? "" : ","); printf(__VA_ARGS__); printf("\""); first = 0; } while (0)
	if (impact) {
		harm = impact->significant && impact->r_p999 > 1;
		if (impact->significant)
			VERDICT("Split locks from the housekeeping vCPU(s) %s p99.9 latency on the isolated vCPU %s over the aligned control.",
				impact->r_p999 >= 1 ? "raised" : "lowered", effect(impact));
		else
			VERDICT("Split locks from the housekeeping vCPU(s) did not significantly change p99.9 latency on the isolated vCPU over the aligned control: %s, not significant.",
				effect(impact));
		double split_pct = cycles_pct(impact->b), aligned_pct = cycles_pct(impact->a);

		if (split_pct >= 0 && aligned_pct >= 0)
			VERDICT("Under split locks cyclictest completed %.0f %% of its periods on the isolated vCPU (aligned control: %.0f %%): %s.",
				split_pct, aligned_pct, split_pct < 0.9 * aligned_pct ?
				"the emulated bus locks starved it, beyond what the latency figures show" :
				"it was not starved");
	}
	if (on) {
		int killed = count_fate(on->b, "sigbus");

		if (killed) {
			cured = !(on->significant && on->r_p999 > 1);
			VERDICT("With split_lock_detect the offender died of SIGBUS in %d of %d reps, after %.0f ms (median) and at most %lld completed split locks; p99.9 %s baseline: %s%s.",
				killed, on->b->nreps, rep_median(on->b, "load_end_ms"), max_ops(on->b, "sigbus"),
				!on->significant ? "stayed within noise of" : cured ? "was not above" : "stayed above",
				effect(on), sig_word(on));
		} else {
			VERDICT("With split_lock_detect the offender was not killed (load fates: %s); p99.9 versus baseline %s%s.",
				on->b->fates, effect(on), sig_word(on));
		}
	}
	if (warn)
		VERDICT("Upstream warn mode with split_lock_mitigate=1: the offender survived (load fates: %s) and trapped %.0f times per rep (median); p99.9 versus baseline %s%s.",
			warn->b->fates, rep_median(warn->b, "sld_traps"), effect(warn),
			sig_word(warn));
	if (warn0)
		VERDICT("Warn mode without the slow-down (split_lock_mitigate=0): load fates %s, %.0f traps per rep (median); p99.9 versus baseline %s%s.",
			warn0->b->fates, rep_median(warn0->b, "sld_traps"), effect(warn0),
			sig_word(warn0));
	if (lockbus)
		VERDICT("stress-ng --lockbus as the offender, detection off: p99.9 versus baseline %s%s.",
			effect(lockbus), sig_word(lockbus));
	if (impact && on) {
		if (harm && cured)
			VERDICT("Decision: split locks harm the isolated vCPU's latency and detection removes the harm by killing the offender; enable split_lock_detect on RT systems whose applications are free of split locks.");
		else if (!harm)
			VERDICT("Decision: this run shows no significant split-lock harm over the aligned control, so it gives no latency reason to enable detection; repeat with longer runs or on hardware before deciding.");
		else
			VERDICT("Decision: detection killed the offender but latency did not return to baseline in this run; investigate before relying on detection alone.");
	}
	printf("\n  ]");
#undef VERDICT
}

static void scen_json(const struct run_scen *s, int last)
{
	double lo99 = NAN, hi99 = NAN, lo999 = NAN, hi999 = NAN;

	if (s->good) {
		bootstrap_quantile(s->good_hists, s->good, 0.99, nboot, seed, &lo99, &hi99, NULL);
		bootstrap_quantile(s->good_hists, s->good, 0.999, nboot, seed, &lo999, &hi999, NULL);
	}
	printf("    {\"name\": \"%s\", \"reps\": %d, \"reps_ok\": %d, \"load_fates\": \"%s\", "
	       "\"samples\": %llu, \"overflows\": %llu, \"min_us\": %ld, \"avg_us\": %.2f, \"p50_us\": %ld, "
	       "\"p90_us\": %ld, \"p99_us\": %ld, \"p999_us\": %ld, \"max_us\": %ld, \"cycles_pct\": %.1f, \"p99_ci\": [",
	       s->name, s->nreps, s->good, s->fates, (unsigned long long)s->pst.samples,
	       (unsigned long long)s->pst.overflows, s->pst.min_us, s->pst.avg_us, s->pst.p50, s->pst.p90,
	       s->pst.p99, s->pst.p999, s->pst.max_us, cycles_pct(s));
	jnum(lo99);
	printf(", ");
	jnum(hi99);
	printf("], \"p999_ci\": [");
	jnum(lo999);
	printf(", ");
	jnum(hi999);
	printf("], \"per_rep\": [");
	for (int r = 0, n = 0; r < s->nreps; r++) {
		const struct run_rep *rp = &s->reps[r];

		if (!rp->have_hist)
			continue;
		printf("%s{\"rep\": %d, \"p99_us\": %ld, \"p999_us\": %ld, \"max_us\": %ld}", n++ ? ", " : "",
		       rp->rep, rp->st.p99, rp->st.p999, rp->st.max_us);
	}
	printf("]}%s\n", last ? "" : ",");
}

static void cmp_json(const struct cmp *c, int last)
{
	printf("    {\"label\": \"%s\", \"a\": \"%s\", \"b\": \"%s\", \"ratio_avg\": ", c->label, c->a->name, c->b->name);
	jnum(c->r_avg);
	printf(", \"ratio_p99\": ");
	jnum(c->r_p99);
	printf(", \"ratio_p99_ci\": [");
	jnum(c->ci99[0]);
	printf(", ");
	jnum(c->ci99[1]);
	printf("], \"ratio_p999\": ");
	jnum(c->r_p999);
	printf(", \"ratio_p999_ci\": [");
	jnum(c->ci999[0]);
	printf(", ");
	jnum(c->ci999[1]);
	printf("], \"mw_u\": %.1f, \"mw_z\": %.3f, \"mw_p\": %.3g, \"auc\": %.4f, \"significant\": %s}%s\n",
	       c->mw.u, c->mw.z, c->mw.p, c->mw.auc, c->significant ? "true" : "false", last ? "" : ",");
}

static int write_plot_data(const char *dir)
{
	char path[4096];
	FILE *idx, *mx;

	if (mkdir(dir, 0755) && errno != EEXIST) {
		fprintf(stderr, "slb-stats: cannot create %s: %s\n", dir, strerror(errno));
		return -1;
	}
	snprintf(path, sizeof(path), "%s/scenarios.dat", dir);
	idx = fopen(path, "w");
	snprintf(path, sizeof(path), "%s/maxrep.dat", dir);
	mx = fopen(path, "w");
	if (!idx || !mx) {
		fprintf(stderr, "slb-stats: cannot write in %s\n", dir);
		return -1;
	}
	fprintf(idx, "# index name samples max_us p999_us\n");
	fprintf(mx, "# index name rep max_us\n");
	for (int i = 0; i < run.nscen; i++) {
		const struct run_scen *s = &run.scen[i];
		uint64_t n = s->pooled.samples + s->pooled.overflows, acc = 0;
		FILE *h, *c;

		fprintf(idx, "%d %s %llu %ld %ld\n", i, s->name, (unsigned long long)n, s->pst.max_us, s->pst.p999);
		for (int r = 0; r < s->nreps; r++)
			if (s->reps[r].have_hist)
				fprintf(mx, "%d %s %d %ld\n", i, s->name, s->reps[r].rep, s->reps[r].st.max_us);
		snprintf(path, sizeof(path), "%s/%s.hist", dir, s->name);
		h = fopen(path, "w");
		snprintf(path, sizeof(path), "%s/%s.ccdf", dir, s->name);
		c = fopen(path, "w");
		if (!h || !c) {
			fprintf(stderr, "slb-stats: cannot write %s\n", path);
			return -1;
		}
		fprintf(h, "# latency_us samples (pooled over %d reps of %s)\n", s->good, s->name);
		fprintf(c, "# latency_us fraction_above\n");
		for (size_t b = 0; b < s->pooled.nbuckets; b++) {
			if (!s->pooled.count[b])
				continue;
			acc += s->pooled.count[b];
			fprintf(h, "%zu %llu\n", b, (unsigned long long)s->pooled.count[b]);
			if (acc < n)
				fprintf(c, "%zu %.9g\n", b, (double)(n - acc) / (double)n);
		}
		fclose(h);
		fclose(c);
	}
	fclose(idx);
	fclose(mx);
	return 0;
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "against", required_argument, NULL, 'a' },
		{ "plot-data", required_argument, NULL, 'p' },
		{ "boot", required_argument, NULL, 'b' },
		{ "seed", required_argument, NULL, 's' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *against = NULL, *plot = NULL;
	char err[512], *end;
	int c;

	while ((c = getopt_long(argc, argv, "a:p:b:s:h", opts, NULL)) != -1) {
		switch (c) {
		case 'a': against = optarg; break;
		case 'p': plot = optarg; break;
		case 'b':
			nboot = (int)strtol(optarg, &end, 10);
			if (*end || nboot < 100 || nboot > 100000) {
				fprintf(stderr, "slb-stats: --boot '%s' is not a number from 100 to 100000\n", optarg);
				return 2;
			}
			break;
		case 's':
			seed = strtoull(optarg, &end, 10);
			if (*end || end == optarg) {
				fprintf(stderr, "slb-stats: --seed '%s' is not a whole number\n", optarg);
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
	if (run_load(argv[optind], &run, err, sizeof(err))) {
		fprintf(stderr, "slb-stats: %s\n", err);
		return 1;
	}
	if (against) {
		if (run_load(against, &base, err, sizeof(err))) {
			fprintf(stderr, "slb-stats: %s\n", err);
			return 1;
		}
		if (base.nscen != run.nscen) {
			fprintf(stderr, "slb-stats: the runs have different scenario sets (%d vs %d scenarios); compare runs of the same matrix\n",
				base.nscen, run.nscen);
			return 1;
		}
		for (int i = 0; i < run.nscen; i++) {
			struct run_scen *a = run_find(&base, run.scen[i].name);

			if (!a) {
				fprintf(stderr, "slb-stats: scenario '%s' is not in %s; compare runs of the same matrix\n",
					run.scen[i].name, against);
				return 1;
			}
			compare(a, &run.scen[i], run.scen[i].name);
		}
	} else {
		within_run_comparisons();
	}
	if (plot && write_plot_data(plot))
		return 1;
	printf("{\n  \"unit\": \"us\",\n  \"emulated\": true,\n");
	printf("  \"method\": {\"ci\": \"95 %% percentile bootstrap over reps: reps resampled with replacement, their histograms pooled, B = %d, seed %llu\", "
	       "\"test\": \"Mann-Whitney U, two-sided, normal approximation with tie correction, on the pooled samples of each scenario\", "
	       "\"significant\": \"Mann-Whitney p < alpha and the 95 %% CI of the p99.9 ratio excludes 1 (samples within a run are autocorrelated)\", \"alpha\": %.2f},\n",
	       nboot, (unsigned long long)seed, ALPHA);
	if (against)
		printf("  \"against\": \"%s\",\n", against);
	printf("  \"scenarios\": [\n");
	for (int i = 0; i < run.nscen; i++)
		scen_json(&run.scen[i], i + 1 == run.nscen);
	printf("  ],\n  \"comparisons\": [\n");
	for (int i = 0, n = 0, last = 0; i < ncmp; i++) {
		if (!cmps[i].ok)
			continue;
		for (last = i + 1; last < ncmp && !cmps[last].ok; last++)
			;
		cmp_json(&cmps[i], last >= ncmp);
		n++;
	}
	printf("  ],\n");
	if (!against)
		verdicts();
	else
		printf("  \"verdicts\": []");
	printf("\n}\n");
	run_free(&run);
	if (against)
		run_free(&base);
	return 0;
}
